import type { SqlRunner } from '../sql/sql-runner';

/** Every pending deletion is in the partial index ix_metaverse_object_pending_deletion (type_id, id). */
const PENDING = 'o.last_connector_disconnected_date IS NOT NULL';

/** A metaverse object waiting for automatic deletion, with what its status depends on. */
export interface PendingDeletionRow {
  id: string;
  displayName: string | null;
  typeId: number;
  typeName: string;
  lastConnectorDisconnectedDate: Date;
  deletionEligibleDate: Date | null;
  deletionGracePeriodSeconds: number | null;
  connectedSystemObjectCount: number;
  daysUntilDeletion: number | null;
  /** The eligible date is still ahead. */
  eligibleLater: boolean;
}

export interface PendingDeletionTally {
  total: number;
  /** Still joined to connector space objects. */
  deprovisioning: number;
  awaiting: number;
  ready: number;
}

/** Metaverse objects whose last connector disconnected (spec 2.9, 3.4). */
export class PendingDeletionStore {
  constructor(private readonly db: SqlRunner) {}

  /**
   * One page in id order of the pending deletions of the given object types: a walk of the partial index
   * per type, merged, so a page never sorts every pending deletion.
   */
  async page(objectTypeIds: readonly number[], offset: number, pageSize: number): Promise<PendingDeletionRow[]> {
    if (!objectTypeIds.length) return [];
    const params: unknown[] = [];
    const walk = (typeId: number, limit: string) =>
      `(SELECT o.id FROM metaverse_object o WHERE ${PENDING} AND o.type_id = $${params.push(typeId)} ORDER BY o.id ${limit})`;
    const idSql =
      objectTypeIds.length === 1
        ? walk(objectTypeIds[0], `LIMIT ${pageSize} OFFSET ${offset}`)
        : `SELECT id FROM (${objectTypeIds.map((t) => walk(t, `LIMIT ${offset + pageSize}`)).join(' UNION ALL ')}) u
          ORDER BY id LIMIT ${pageSize} OFFSET ${offset}`;
    const ids = await this.db.query<Array<{ id: string }>>(idSql, params);
    if (!ids.length) return [];
    return this.db.query<PendingDeletionRow[]>(
      `SELECT o.id, o.display_name AS "displayName", o.type_id AS "typeId", t.name AS "typeName",
              o.last_connector_disconnected_date AS "lastConnectorDisconnectedDate", o.deletion_eligible_date AS "deletionEligibleDate",
              t.deletion_grace_period_seconds AS "deletionGracePeriodSeconds",
              (SELECT count(*)::int FROM connected_system_object c WHERE c.metaverse_object_id = o.id) AS "connectedSystemObjectCount",
              floor(extract(epoch FROM (o.deletion_eligible_date - now())) / 86400)::int AS "daysUntilDeletion",
              coalesce(o.deletion_eligible_date > now(), false) AS "eligibleLater"
         FROM metaverse_object o JOIN metaverse_object_type t ON t.id = o.type_id
        WHERE o.id = ANY($1::uuid[]) AND ${PENDING}
        ORDER BY o.id`,
      [ids.map((r) => r.id)],
    );
  }

  /** How many pending deletions there are (of one type when given): an index-only count of the partial index. */
  async count(objectTypeId: number | null): Promise<number> {
    const [{ count }] =
      objectTypeId === null
        ? await this.db.query<Array<{ count: number }>>(`SELECT count(*)::int AS count FROM metaverse_object o WHERE ${PENDING}`)
        : await this.db.query<Array<{ count: number }>>(
            `SELECT count(*)::int AS count FROM metaverse_object o WHERE ${PENDING} AND o.type_id = $1`,
            [objectTypeId],
          );
    return count;
  }

  /** Pending deletions by what they wait for. */
  async tally(): Promise<PendingDeletionTally> {
    const [row] = await this.db.query<PendingDeletionTally[]>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE s.joined)::int AS deprovisioning,
              count(*) FILTER (WHERE NOT s.joined AND s.eligible_later)::int AS awaiting,
              count(*) FILTER (WHERE NOT s.joined AND NOT s.eligible_later)::int AS ready
         FROM (SELECT EXISTS (SELECT 1 FROM connected_system_object c WHERE c.metaverse_object_id = o.id) AS joined,
                      coalesce(o.deletion_eligible_date > now(), false) AS eligible_later
                 FROM metaverse_object o WHERE ${PENDING}) s`,
    );
    return row;
  }
}
