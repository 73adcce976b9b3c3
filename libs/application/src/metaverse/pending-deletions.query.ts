import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DomainError, formatGracePeriod, PendingDeletionStatus, ValidationErrorCollector } from '@meridian/domain';
import { PagedResult, pageOf, parsePaging } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { positiveIntParam } from '../common/query-params';

export interface PendingDeletionListQuery {
  page?: unknown;
  pageSize?: unknown;
  objectTypeId?: unknown;
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

/** Every pending deletion is in the partial index ix_metaverse_object_pending_deletion (type_id, id). */
const PENDING = 'o.last_connector_disconnected_date IS NOT NULL';

interface Row {
  id: string;
  display_name: string | null;
  type_id: number;
  type_name: string;
  last_connector_disconnected_date: Date;
  deletion_eligible_date: Date | null;
  deletion_grace_period_seconds: number | null;
  cso_count: number;
  days_until_deletion: number | null;
  eligible_later: boolean;
}

/** Metaverse objects waiting for automatic deletion (spec 2.9, 3.4, 4.6). */
@Injectable()
export class PendingDeletionsQuery {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Ordered by id: a walk of the partial index per object type, merged, so a page never sorts every pending deletion. */
  async list(query: PendingDeletionListQuery): Promise<PagedResult<PendingDeletionView>> {
    const paging = parsePaging(query, { pageSize: 25, maxPageSize: 100 });
    const { objectTypeId, typeIds } = await this.scope(query.objectTypeId);
    const params: unknown[] = [];
    const walk = (typeId: number, limit: string) =>
      `(SELECT o.id FROM metaverse_object o WHERE ${PENDING} AND o.type_id = $${params.push(typeId)} ORDER BY o.id ${limit})`;
    const idSql =
      typeIds.length === 1
        ? walk(typeIds[0], `LIMIT ${paging.pageSize} OFFSET ${paging.offset}`)
        : `SELECT id FROM (${typeIds.map((t) => walk(t, `LIMIT ${paging.offset + paging.pageSize}`)).join(' UNION ALL ')}) u
          ORDER BY id LIMIT ${paging.pageSize} OFFSET ${paging.offset}`;
    const [ids, total] = await Promise.all([
      typeIds.length ? (this.ds.query(idSql, params) as Promise<Array<{ id: string }>>) : Promise.resolve([]),
      this.countOf(objectTypeId),
    ]);
    const rows: Row[] = ids.length
      ? await this.ds.query(
          `SELECT o.id, o.display_name, o.type_id, t.name AS type_name, o.last_connector_disconnected_date, o.deletion_eligible_date,
              t.deletion_grace_period_seconds,
              (SELECT count(*)::int FROM connected_system_object c WHERE c.metaverse_object_id = o.id) AS cso_count,
              floor(extract(epoch FROM (o.deletion_eligible_date - now())) / 86400)::int AS days_until_deletion,
              coalesce(o.deletion_eligible_date > now(), false) AS eligible_later
         FROM metaverse_object o JOIN metaverse_object_type t ON t.id = o.type_id
        WHERE o.id = ANY($1::uuid[]) AND ${PENDING}
        ORDER BY o.id`,
          [ids.map((r) => r.id)],
        )
      : [];
    return pageOf(
      rows.map((r) => ({
        id: r.id,
        displayName: r.display_name,
        typeName: r.type_name,
        typeId: r.type_id,
        lastConnectorDisconnectedDate: r.last_connector_disconnected_date.toISOString(),
        deletionEligibleDate: r.deletion_eligible_date?.toISOString() ?? null,
        daysUntilDeletion: r.days_until_deletion,
        gracePeriod: formatGracePeriod(r.deletion_grace_period_seconds),
        connectedSystemObjectCount: r.cso_count,
        status: pendingDeletionStatus(r.cso_count, r.eligible_later),
      })),
      total,
      paging,
    );
  }

  /** How many pending deletions there are (of one type when given): an index-only count of the partial index. */
  async count(query: { objectTypeId?: unknown }): Promise<number> {
    const { objectTypeId } = await this.scope(query.objectTypeId);
    return this.countOf(objectTypeId);
  }

  async summary(): Promise<PendingDeletionSummary> {
    const [row]: Array<{ total: number; deprovisioning: number; awaiting: number; ready: number }> = await this.ds.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE s.joined)::int AS deprovisioning,
              count(*) FILTER (WHERE NOT s.joined AND s.eligible_later)::int AS awaiting,
              count(*) FILTER (WHERE NOT s.joined AND NOT s.eligible_later)::int AS ready
         FROM (SELECT EXISTS (SELECT 1 FROM connected_system_object c WHERE c.metaverse_object_id = o.id) AS joined,
                      coalesce(o.deletion_eligible_date > now(), false) AS eligible_later
                 FROM metaverse_object o WHERE ${PENDING}) s`,
    );
    return {
      totalCount: row.total,
      deprovisioningCount: row.deprovisioning,
      awaitingGracePeriodCount: row.awaiting,
      readyForDeletionCount: row.ready,
    };
  }

  private async countOf(typeId: number | null): Promise<number> {
    const [{ count }]: Array<{ count: number }> =
      typeId === null
        ? await this.ds.query(`SELECT count(*)::int AS count FROM metaverse_object o WHERE ${PENDING}`)
        : await this.ds.query(`SELECT count(*)::int AS count FROM metaverse_object o WHERE ${PENDING} AND o.type_id = $1`, [typeId]);
    return count;
  }

  /** The requested type (400 when it does not exist), or every type. */
  private async scope(raw: unknown): Promise<{ objectTypeId: number | null; typeIds: number[] }> {
    const errors = new ValidationErrorCollector();
    const objectTypeId = positiveIntParam(raw, 'objectTypeId', errors);
    errors.throwIfAny();
    const types: Array<{ id: number }> =
      objectTypeId === null
        ? await this.ds.query(`SELECT id FROM metaverse_object_type ORDER BY id`)
        : await this.ds.query(`SELECT id FROM metaverse_object_type WHERE id = $1`, [objectTypeId]);
    if (objectTypeId !== null && !types.length)
      throw DomainError.validation('objectTypeId', `Metaverse object type ${objectTypeId} does not exist.`);
    return { objectTypeId, typeIds: types.map((t) => t.id) };
  }
}
