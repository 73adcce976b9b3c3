import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PendingExportChangeType, PendingExportStatus } from '@meridian/domain';
import { PagedResult, pageOf, pagingOf } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { ConnectedSystemStore, PendingExportReadRow, PendingExportReadStore } from '@meridian/persistence';
import { findSystem } from './connected-system.lookup';
import { changedAttributeIds, PendingExportView, pendingExportView } from './pending-export.views';

/** The list filters, each already of its type; absent means "any". */
export interface PendingExportListQuery {
  page?: number;
  pageSize?: number;
  status?: PendingExportStatus;
  changeType?: PendingExportChangeType;
}

/** The list envelope (spec 2.1) plus whether totalCount is exact (see LIST_COUNT_CAP). */
export interface PendingExportPage extends PagedResult<PendingExportView> {
  totalCountIsExact: boolean;
}

/** Reads the staged changes of a connected system (DOMAIN.md §2.3). */
@Injectable()
export class PendingExportsQuery {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Ordered by id: with or without a status, every page is a walk of (connected_system_id, status, id). */
  async list(systemId: number, query: PendingExportListQuery): Promise<PendingExportPage> {
    const paging = pagingOf(query, 25);
    const { status = null, changeType = null } = query;
    await findSystem(this.ds.manager, systemId);
    const { rows, totalCount, totalCountIsExact } = await new PendingExportReadStore(this.ds).page(
      systemId,
      { status, changeType },
      paging,
    );
    return { ...pageOf(await this.views(rows), totalCount, paging), totalCountIsExact };
  }

  /** Every pending export of one connector space object, oldest first. */
  async forObject(objectId: string): Promise<PendingExportView[]> {
    return this.views(await new PendingExportReadStore(this.ds).forObject(objectId));
  }

  private async views(rows: PendingExportReadRow[]): Promise<PendingExportView[]> {
    const attributes = await new ConnectedSystemStore(this.ds).attributeMeta(changedAttributeIds(rows));
    return rows.map((r) => pendingExportView(r, attributes));
  }
}
