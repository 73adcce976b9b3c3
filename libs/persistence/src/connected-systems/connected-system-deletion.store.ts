import { ActivityStatus } from '@meridian/domain';
import type { SqlRunner, WriteResult } from '../sql/sql-runner';
import { execute, returnedRows } from '../sql/sql-runner';

/** An activity's state as a deletion checks it between batches. */
export interface DeletionActivityState {
  status: string;
  cancelRequested: boolean;
}

/** What deleting a system removes or leaves behind (the preview of spec 4.3). */
export interface DeletionCounts {
  objects: number;
  types: number;
  attributes: number;
  profiles: number;
  rules: number;
  /** Metaverse objects joined to the system, and those of them no other system is joined to. */
  joined: number;
  orphaned: number;
}

const IN_PROGRESS = ActivityStatus.InProgress;

/**
 * The SQL of a connected-system deletion: its activity (claim, progress, outcome), the connector space
 * deleted in keyset batches, and the system row with what refers to it.
 */
export class ConnectedSystemDeletionStore {
  constructor(private readonly db: SqlRunner) {}

  /** Replaces the message of the deletion while it is in progress. */
  async say(activityId: string, message: string): Promise<void> {
    await execute(this.db, `UPDATE activity SET message = $2 WHERE id = $1 AND status = $3`, [activityId, message, IN_PROGRESS]);
  }

  /**
   * Claims the deletion for a worker (again, after a crash, once the claim's heartbeat is older than
   * `staleMs`); answers the objects it had processed, or null when another worker holds it.
   */
  async claim(activityId: string, worker: string, message: string, staleMs: number): Promise<number | null> {
    const rows = returnedRows(
      await this.db.query<WriteResult<{ objects_processed: number }>>(
        `UPDATE activity SET claimed_at = now(), claimed_by = $2, heartbeat_at = now(), executed = coalesce(executed, now()), message = $4
          WHERE id = $1 AND status = $3
            AND (claimed_at IS NULL OR claimed_by = $2 OR heartbeat_at IS NULL OR heartbeat_at < now() - ($5::bigint * interval '1 millisecond'))
          RETURNING objects_processed`,
        [activityId, worker, IN_PROGRESS, message, staleMs],
      ),
    );
    return rows.length ? rows[0].objects_processed : null;
  }

  async countObjects(systemId: number): Promise<number> {
    const [row] = await this.db.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM connected_system_object WHERE connected_system_id = $1`,
      [systemId],
    );
    return row.n;
  }

  async setObjectsToProcess(activityId: string, total: number): Promise<void> {
    await execute(this.db, `UPDATE activity SET objects_to_process = $2 WHERE id = $1`, [activityId, total]);
  }

  /** Deletes the next `limit` connector space objects after `after` (keyset on id); answers how many and the last id. */
  async deleteObjectBatch(systemId: number, after: string, limit: number): Promise<{ deleted: number; last: string | null }> {
    const [row] = await this.db.query<Array<{ n: number; last: string | null }>>(
      `WITH batch AS (
         SELECT id FROM connected_system_object WHERE connected_system_id = $1 AND id > $2::uuid ORDER BY id LIMIT $3
       ), gone AS (
         DELETE FROM connected_system_object c USING batch WHERE c.id = batch.id RETURNING c.id
       )
       SELECT count(*)::int AS n, max(id::text) AS last FROM gone`,
      [systemId, after, limit],
    );
    return { deleted: row.n, last: row.last };
  }

  /** Writes progress and the heartbeat; answers the activity's state (null when it is gone). */
  async progress(activityId: string, processed: number): Promise<DeletionActivityState | null> {
    const rows = returnedRows(
      await this.db.query<WriteResult<{ status: string; cancel_requested: boolean }>>(
        `UPDATE activity SET objects_processed = $2, heartbeat_at = now() WHERE id = $1 RETURNING status, cancel_requested`,
        [activityId, processed],
      ),
    );
    return rows[0] ? { status: rows[0].status, cancelRequested: rows[0].cancel_requested } : null;
  }

  /** The activity's state, locked until the end of the transaction. */
  async lockActivity(activityId: string): Promise<DeletionActivityState | null> {
    const [row] = await this.db.query<Array<{ status: string; cancel_requested: boolean }>>(
      `SELECT status, cancel_requested FROM activity WHERE id = $1 FOR UPDATE`,
      [activityId],
    );
    return row ? { status: row.status, cancelRequested: row.cancel_requested } : null;
  }

  /** Metaverse object types stop naming the system as a deletion-rule trigger. */
  async forgetDeletionTrigger(systemId: number): Promise<void> {
    await execute(
      this.db,
      `UPDATE metaverse_object_type SET deletion_trigger_connected_system_ids = array_remove(deletion_trigger_connected_system_ids, $1), last_updated = now()
        WHERE $1 = ANY(deletion_trigger_connected_system_ids)`,
      [systemId],
    );
  }

  async complete(activityId: string, processed: number, message: string): Promise<void> {
    await execute(
      this.db,
      `UPDATE activity SET status = $2, completed = now(), heartbeat_at = now(), objects_processed = $3, objects_to_process = greatest(objects_to_process, $3),
              execution_time_ms = (extract(epoch FROM (now() - coalesce(executed, created))) * 1000)::bigint, message = $4
        WHERE id = $1`,
      [activityId, ActivityStatus.Complete, processed, message],
    );
  }

  /** Ends an in-progress deletion as Cancelled. */
  async cancel(activityId: string): Promise<void> {
    await execute(this.db, `UPDATE activity SET status = $2, completed = coalesce(completed, now()) WHERE id = $1 AND status = $3`, [
      activityId,
      ActivityStatus.Cancelled,
      IN_PROGRESS,
    ]);
  }

  /** Ends an in-progress deletion as FailedWithError with the reason. */
  async fail(activityId: string, reason: string): Promise<void> {
    await execute(
      this.db,
      `UPDATE activity SET status = $2, completed = now(), error_message = $3,
              execution_time_ms = CASE WHEN executed IS NULL THEN NULL ELSE (extract(epoch FROM (now() - executed)) * 1000)::bigint END
        WHERE id = $1 AND status = $4`,
      [activityId, ActivityStatus.FailedWithError, reason, IN_PROGRESS],
    );
  }

  /** What a deletion of the system would remove or leave behind. */
  async counts(systemId: number): Promise<DeletionCounts> {
    const [counts] = await this.db.query<Array<Omit<DeletionCounts, 'joined' | 'orphaned'>>>(
      `SELECT (SELECT count(*)::int FROM connected_system_object WHERE connected_system_id = $1) AS objects,
              (SELECT count(*)::int FROM connected_system_object_type WHERE connected_system_id = $1) AS types,
              (SELECT count(*)::int FROM connected_system_attribute a JOIN connected_system_object_type t ON t.id = a.object_type_id WHERE t.connected_system_id = $1) AS attributes,
              (SELECT count(*)::int FROM connected_system_run_profile WHERE connected_system_id = $1) AS profiles,
              (SELECT count(*)::int FROM sync_rule WHERE connected_system_id = $1) AS rules`,
      [systemId],
    );
    const [joins] = await this.db.query<Array<{ joined: number; orphaned: number }>>(
      `WITH joined AS (SELECT DISTINCT metaverse_object_id AS mvo FROM connected_system_object WHERE connected_system_id = $1 AND metaverse_object_id IS NOT NULL)
       SELECT count(*)::int AS joined,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM connected_system_object o WHERE o.metaverse_object_id = joined.mvo AND o.connected_system_id <> $1))::int AS orphaned
         FROM joined`,
      [systemId],
    );
    return { ...counts, ...joins };
  }

  /** Names of the metaverse object types whose deletion rule names the system. */
  async deletionTriggerTypeNames(systemId: number): Promise<string[]> {
    const rows = await this.db.query<Array<{ name: string }>>(
      `SELECT name FROM metaverse_object_type WHERE $1 = ANY(deletion_trigger_connected_system_ids) ORDER BY name`,
      [systemId],
    );
    return rows.map((r) => r.name);
  }
}
