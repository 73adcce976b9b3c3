import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DomainError, formatGracePeriod, PendingDeletionStatus } from '@meridian/domain';
import { PagedResult, pageOf, pagingOf } from '@meridian/platform';
import { MetaverseSchemaStore, PendingDeletionStore } from '@meridian/persistence';
import { DataSource } from 'typeorm';

/** Query of GET /metaverse/pending-deletions, validated. */
export interface PendingDeletionListQuery {
  page?: number;
  pageSize?: number;
  /** Only objects of this type (absent: every type). */
  objectTypeId?: number;
}

/** Spec 2.9. */
export interface PendingDeletionView {
  id: string;
  displayName: string | null;
  typeName: string;
  typeId: number;
  lastConnectorDisconnectedDate: string;
  deletionEligibleDate: string | null;
  daysUntilDeletion: number | null;
  gracePeriod: string | null;
  connectedSystemObjectCount: number;
  status: PendingDeletionStatus;
}

export interface PendingDeletionSummary {
  totalCount: number;
  deprovisioningCount: number;
  awaitingGracePeriodCount: number;
  readyForDeletionCount: number;
}

/** Spec 3.4: still joined → Deprovisioning; otherwise waiting until the eligible date, then ready. */
export function pendingDeletionStatus(connectedSystemObjectCount: number, eligibleLater: boolean): PendingDeletionStatus {
  if (connectedSystemObjectCount > 0) return PendingDeletionStatus.Deprovisioning;
  return eligibleLater ? PendingDeletionStatus.AwaitingGracePeriod : PendingDeletionStatus.ReadyForDeletion;
}

/** Metaverse objects waiting for automatic deletion (spec 2.9, 3.4, 4.6). */
@Injectable()
export class PendingDeletionsQuery {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Ordered by id: a walk of the partial index per object type, merged, so a page never sorts every pending deletion. */
  async list(query: PendingDeletionListQuery): Promise<PagedResult<PendingDeletionView>> {
    const paging = pagingOf(query, 25);
    const { objectTypeId, typeIds } = await this.scope(query.objectTypeId);
    const store = new PendingDeletionStore(this.ds);
    const [rows, total] = await Promise.all([store.page(typeIds, paging.offset, paging.pageSize), store.count(objectTypeId)]);
    return pageOf(
      rows.map((r) => ({
        id: r.id,
        displayName: r.displayName,
        typeName: r.typeName,
        typeId: r.typeId,
        lastConnectorDisconnectedDate: r.lastConnectorDisconnectedDate.toISOString(),
        deletionEligibleDate: r.deletionEligibleDate?.toISOString() ?? null,
        daysUntilDeletion: r.daysUntilDeletion,
        gracePeriod: formatGracePeriod(r.deletionGracePeriodSeconds),
        connectedSystemObjectCount: r.connectedSystemObjectCount,
        status: pendingDeletionStatus(r.connectedSystemObjectCount, r.eligibleLater),
      })),
      total,
      paging,
    );
  }

  /** How many pending deletions there are (of one type when given): an index-only count of the partial index. */
  async count(query: { objectTypeId?: number }): Promise<number> {
    const { objectTypeId } = await this.scope(query.objectTypeId);
    return new PendingDeletionStore(this.ds).count(objectTypeId);
  }

  async summary(): Promise<PendingDeletionSummary> {
    const row = await new PendingDeletionStore(this.ds).tally();
    return {
      totalCount: row.total,
      deprovisioningCount: row.deprovisioning,
      awaitingGracePeriodCount: row.awaiting,
      readyForDeletionCount: row.ready,
    };
  }

  /** The requested type (400 when it does not exist), or every type. */
  private async scope(requested: number | undefined): Promise<{ objectTypeId: number | null; typeIds: number[] }> {
    const objectTypeId = requested ?? null;
    const types = await new MetaverseSchemaStore(this.ds).objectTypeNames(objectTypeId ?? undefined);
    if (objectTypeId !== null && !types.length)
      throw DomainError.validation('objectTypeId', `Metaverse object type ${objectTypeId} does not exist.`);
    return { objectTypeId, typeIds: types.map((t) => t.id) };
  }
}
