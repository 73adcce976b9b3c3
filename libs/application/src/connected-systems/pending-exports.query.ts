import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PendingExportChangeType, PendingExportStatus, ValidationErrorCollector } from '@meridian/domain';
import { PagedResult, pageOf, parsePaging } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { boundedCount, SqlRunner } from '../common/bounded-count';
import { enumParam } from '../common/query-params';
import { findSystem } from './connected-system.store';
import {
  attributeMeta,
  changedAttributeIds,
  PENDING_EXPORT_COLUMNS,
  PendingExportRow,
  PendingExportView,
  pendingExportView,
} from './pending-export.views';

export interface PendingExportListQuery {
  page?: unknown;
  pageSize?: unknown;
  status?: unknown;
  changeType?: unknown;
}

/** The list envelope (spec 2.1) plus whether totalCount is exact (see LIST_COUNT_CAP). */
export interface PendingExportPage extends PagedResult<PendingExportView> {
  totalCountIsExact: boolean;
}

const FROM = 'pending_export pe JOIN connected_system_object c ON c.id = pe.connected_system_object_id';

/** Reads the staged changes of a connected system (DOMAIN.md §2.3). */
@Injectable()
export class PendingExportsQuery {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Ordered by id: with or without a status, every page is a walk of (connected_system_id, status, id). */
  async list(systemId: number, query: PendingExportListQuery): Promise<PendingExportPage> {
    const paging = parsePaging(query, { pageSize: 25, maxPageSize: 100 });
    const errors = new ValidationErrorCollector();
    const status = enumParam(query.status, PendingExportStatus, 'status', errors);
    const changeType = enumParam(query.changeType, PendingExportChangeType, 'changeType', errors);
    errors.throwIfAny();
    await findSystem(this.ds.manager, systemId);

    const statuses = status ? [status] : Object.values(PendingExportStatus);
    const params: unknown[] = [systemId];
    const typeFilter = changeType ? `AND pe.change_type = $${params.push(changeType)}` : '';
    const walk = (s: number) => `SELECT pe.id FROM pending_export pe
       WHERE pe.connected_system_id = $1 AND pe.status = $${params.push(statuses[s])} ${typeFilter} ORDER BY pe.id`;
    // Without a status: one walk per status, each cut at offset + pageSize, merged — never a sort of all the system's exports.
    const idSql =
      statuses.length === 1
        ? `${walk(0)} LIMIT ${paging.pageSize} OFFSET ${paging.offset}`
        : `SELECT id FROM (${statuses.map((_, i) => `(${walk(i)} LIMIT ${paging.offset + paging.pageSize})`).join(' UNION ALL ')}) u
          ORDER BY id LIMIT ${paging.pageSize} OFFSET ${paging.offset}`;
    const rows: PendingExportRow[] = await this.ds.query(
      `SELECT ${PENDING_EXPORT_COLUMNS} FROM ${FROM} JOIN (${idSql}) p ON p.id = pe.id ORDER BY pe.id`,
      params,
    );
    const countParams: unknown[] = [systemId, statuses];
    const countTypeFilter = changeType ? `AND pe.change_type = $${countParams.push(changeType)}` : '';
    const { totalCount, totalCountIsExact } = await boundedCount(
      this.ds,
      `pending_export pe WHERE pe.connected_system_id = $1 AND pe.status = ANY($2::text[]) ${countTypeFilter}`,
      countParams,
      paging,
      rows.length,
    );
    return { ...pageOf(await this.views(this.ds, rows), totalCount, paging), totalCountIsExact };
  }

  /** Every pending export of one connector space object, oldest first. */
  async forObject(objectId: string, runner: SqlRunner = this.ds): Promise<PendingExportView[]> {
    const rows: PendingExportRow[] = await runner.query(
      `SELECT ${PENDING_EXPORT_COLUMNS} FROM ${FROM} WHERE pe.connected_system_object_id = $1 ORDER BY pe.created, pe.id`,
      [objectId],
    );
    return this.views(runner, rows);
  }

  private async views(runner: SqlRunner, rows: PendingExportRow[]): Promise<PendingExportView[]> {
    const attributes = await attributeMeta(runner, changedAttributeIds(rows));
    return rows.map((r) => pendingExportView(r, attributes));
  }
}
