import { ActivityStatus, ACTIVE_EXECUTION_STATUSES } from '@meridian/domain';
import type { BulkSession } from '../engine/bulk-session';

/** What one delete statement removed: how many rows, the oldest and newest of their times, and the last key. */
export interface DeletedSpan {
  deleted: number;
  oldest: Date | null;
  newest: Date | null;
  /** Highest id deleted (keyset cursor of the change-record walk); null when nothing was. */
  last: string | null;
}

/** The change-record tables the retention cleanup walks. */
export enum ChangeRecordTable {
  Cso = 'connected_system_object_change',
  Mvo = 'metaverse_object_change',
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

type SpanRow = { deleted: number; oldest: Date | null; newest: Date | null; last: string | null };

const span = (row: SpanRow | null): DeletedSpan => ({
  deleted: row?.deleted ?? 0,
  oldest: row?.oldest ?? null,
  newest: row?.newest ?? null,
  last: row?.last ?? null,
});

/**
 * The SQL of the history retention cleanup (spec 2.13, 4.10) and of deleting a connected system's change
 * history: bounded batches, each one statement (its own short transaction), so runs and the API keep
 * working while millions of rows go. Counts and time ranges are aggregated in SQL, never row by row.
 */
export class HistoryCleanupStore {
  constructor(private readonly s: BulkSession) {}

  /**
   * Serialises cleanups across processes: a session advisory lock on this session's connection, so a
   * second cleanup waits (trying again), then finds only what is left (no double counts, no deadlock
   * between two walks). Answers whether it was taken.
   */
  async tryLock(): Promise<boolean> {
    const row = await this.s.row<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext('meridian:history-cleanup')) AS locked`);
    return row?.locked === true;
  }

  async unlock(): Promise<void> {
    await this.s.rows(`SELECT pg_advisory_unlock(hashtext('meridian:history-cleanup'))`);
  }

  /**
   * Deletes the next `limit` change records (oldest first) with ids below `bound` and above `after`,
   * except those of an activity still in progress (a running run's records stay until it has ended).
   */
  async deleteChangeBatch(table: ChangeRecordTable, bound: string, after: string | null, limit: number): Promise<DeletedSpan> {
    return span(
      await this.s.row<SpanRow>(
        `WITH batch AS (
           SELECT c.id FROM ${table} c
            WHERE c.id < $1::uuid AND c.id > $2::uuid
              AND NOT EXISTS (SELECT 1 FROM activity a WHERE a.id = c.activity_id AND a.status = $4)
            ORDER BY c.id LIMIT $3
         ), d AS (
           DELETE FROM ${table} c USING batch WHERE c.id = batch.id RETURNING c.id, c.change_time
         )
         SELECT count(*)::int AS deleted, min(change_time) AS oldest, max(change_time) AS newest, max(id::text) AS last FROM d`,
        [bound, after ?? NIL_UUID, limit, ActivityStatus.InProgress],
      ),
    );
  }

  /**
   * The next `limit` activities the retention may delete, oldest first: created before the cutoff and
   * finished, with no child activity left (children go first: the parent foreign key cascades, and a
   * cascade would take children the retention must keep), not a schedule execution still running nor
   * the run of one of its steps.
   */
  async expiredActivities(cutoff: Date, limit: number): Promise<string[]> {
    const rows = await this.s.rows<{ id: string }>(
      `SELECT a.id FROM activity a
        WHERE a.created < $1 AND a.status <> $2
          AND NOT EXISTS (SELECT 1 FROM activity c WHERE c.parent_activity_id = a.id)
          AND NOT EXISTS (SELECT 1 FROM schedule_execution e WHERE e.id = a.id AND e.status = ANY($3::text[]))
          AND NOT EXISTS (
            SELECT 1 FROM schedule_execution_step s JOIN schedule_execution e ON e.id = s.execution_id
             WHERE s.activity_id = a.id AND e.status = ANY($3::text[]))
        ORDER BY a.created, a.id LIMIT $4`,
      [cutoff, ActivityStatus.InProgress, ACTIVE_EXECUTION_STATUSES, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Deletes up to `limit` execution items of the activities (a run can have a million): called until it
   * answers 0, so the activities' own delete (whose trigger removes items) has none left to remove.
   */
  async deleteExecutionItemChunk(activityIds: readonly string[], limit: number): Promise<number> {
    if (!activityIds.length) return 0;
    return this.s.count(
      `DELETE FROM activity_execution_item WHERE id IN (
         SELECT id FROM activity_execution_item WHERE activity_id = ANY($1::uuid[]) LIMIT $2)`,
      [activityIds, limit],
    );
  }

  /** Deletes the activities that are still finished and childless (checked again in the statement). */
  async deleteActivities(activityIds: readonly string[]): Promise<DeletedSpan> {
    if (!activityIds.length) return span(null);
    return span(
      await this.s.row<SpanRow>(
        `WITH d AS (
           DELETE FROM activity a WHERE a.id = ANY($1::uuid[]) AND a.status <> $2
              AND NOT EXISTS (SELECT 1 FROM activity c WHERE c.parent_activity_id = a.id)
           RETURNING a.id, a.created
         )
         SELECT count(*)::int AS deleted, min(created) AS oldest, max(created) AS newest, max(id::text) AS last FROM d`,
        [activityIds, ActivityStatus.InProgress],
      ),
    );
  }

  /**
   * Deletes the next `limit` change records of a connected system's objects (deleting the system with
   * its history), walking ix_cso_change_object from `after` (object id, record id); answers the count
   * and the cursor to continue from.
   */
  async deleteSystemChangeBatch(
    systemId: number,
    after: { objectId: string; id: string } | null,
    limit: number,
  ): Promise<{ deleted: number; after: { objectId: string; id: string } | null }> {
    const row = await this.s.row<{ deleted: number; object_id: string | null; id: string | null }>(
      `WITH batch AS (
         SELECT c.connected_system_object_id AS object_id, c.id FROM connected_system_object_change c
          WHERE c.connected_system_id = $1 AND (c.connected_system_object_id, c.id) > ($2::uuid, $3::uuid)
          ORDER BY c.connected_system_object_id, c.id LIMIT $4
       ), d AS (
         DELETE FROM connected_system_object_change c USING batch WHERE c.id = batch.id RETURNING batch.object_id, batch.id
       ), last AS (
         SELECT object_id, id FROM d ORDER BY object_id DESC, id DESC LIMIT 1
       )
       SELECT (SELECT count(*)::int FROM d) AS deleted, (SELECT object_id FROM last) AS object_id, (SELECT id FROM last) AS id`,
      [systemId, after?.objectId ?? NIL_UUID, after?.id ?? NIL_UUID, limit],
    );
    const deleted = row?.deleted ?? 0;
    return { deleted, after: deleted && row?.object_id && row.id ? { objectId: row.object_id, id: row.id } : null };
  }
}
