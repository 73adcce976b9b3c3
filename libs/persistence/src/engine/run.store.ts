import { ActivityStatus } from '@meridian/domain';
import type { BulkSession } from './bulk-session';

/** The counters of a run activity (spec 2.4), as the runners accumulate them. */
export interface RunCounters {
  totalAdded: number;
  totalUpdated: number;
  totalDeleted: number;
  totalProjected: number;
  totalJoined: number;
  totalAttributeFlows: number;
  totalDisconnected: number;
  totalProvisioned: number;
  totalExported: number;
  totalDeprovisioned: number;
  totalPendingExports: number;
  totalErrors: number;
}

export const COUNTER_COLUMNS: Record<keyof RunCounters, string> = {
  totalAdded: 'total_added',
  totalUpdated: 'total_updated',
  totalDeleted: 'total_deleted',
  totalProjected: 'total_projected',
  totalJoined: 'total_joined',
  totalAttributeFlows: 'total_attribute_flows',
  totalDisconnected: 'total_disconnected',
  totalProvisioned: 'total_provisioned',
  totalExported: 'total_exported',
  totalDeprovisioned: 'total_deprovisioned',
  totalPendingExports: 'total_pending_exports',
  totalErrors: 'total_errors',
};

export function emptyCounters(): RunCounters {
  return {
    totalAdded: 0,
    totalUpdated: 0,
    totalDeleted: 0,
    totalProjected: 0,
    totalJoined: 0,
    totalAttributeFlows: 0,
    totalDisconnected: 0,
    totalProvisioned: 0,
    totalExported: 0,
    totalDeprovisioned: 0,
    totalPendingExports: 0,
    totalErrors: 0,
  };
}

/** What a run needs to know about its activity and run profile. */
export interface RunActivityRecord {
  id: string;
  status: string;
  cancelRequested: boolean;
  claimedAt: Date | null;
  connectedSystemId: number | null;
  runProfileId: number | null;
  runType: string | null;
  pageSize: number | null;
  filePath: string | null;
  initiatedByType: string;
  initiatedById: string | null;
  initiatedByName: string | null;
}

export interface RunProgress {
  objectsToProcess?: number;
  objectsProcessed: number;
  message?: string | null;
  counters: RunCounters;
}

export interface RunFinish extends RunProgress {
  status: ActivityStatus;
  warningMessage?: string | null;
  errorMessage?: string | null;
  errorStackTrace?: string | null;
  executionStats?: Record<string, unknown> | null;
}

/** Activity rows of long runs: claim, heartbeat, progress, cancellation and the end (docs/engine.md). */
export class RunStore {
  constructor(private readonly s: BulkSession) {}

  async load(activityId: string): Promise<RunActivityRecord | null> {
    return this.s.row<RunActivityRecord>(
      `SELECT a.id, a.status, a.cancel_requested AS "cancelRequested", a.claimed_at AS "claimedAt", a.connected_system_id AS "connectedSystemId",
              a.connected_system_run_profile_id AS "runProfileId", coalesce(p.run_type, a.connected_system_run_type) AS "runType",
              p.page_size AS "pageSize", p.file_path AS "filePath",
              a.initiated_by_type AS "initiatedByType", a.initiated_by_id AS "initiatedById", a.initiated_by_name AS "initiatedByName"
         FROM activity a LEFT JOIN connected_system_run_profile p ON p.id = a.connected_system_run_profile_id
        WHERE a.id = $1`,
      [activityId],
    );
  }

  /** Claims a queued activity once (a duplicate delivery claims nothing). */
  async claim(activityId: string, worker: string): Promise<boolean> {
    return (
      (await this.s.count(
        `UPDATE activity SET claimed_at = now(), claimed_by = $2, heartbeat_at = now(), executed = coalesce(executed, now()),
              message = 'Running.'
        WHERE id = $1 AND claimed_at IS NULL AND status = $3 AND NOT cancel_requested`,
        [activityId, worker, ActivityStatus.InProgress],
      )) === 1
    );
  }

  async heartbeat(activityId: string): Promise<void> {
    await this.s.count(`UPDATE activity SET heartbeat_at = now() WHERE id = $1 AND status = $2`, [activityId, ActivityStatus.InProgress]);
  }

  /** Writes progress and counters; answers whether cancellation was requested. */
  async progress(activityId: string, p: RunProgress): Promise<{ cancelRequested: boolean }> {
    const { sets, params } = counterSets(p.counters, 5);
    const row = await this.s.row<{ cancel_requested: boolean }>(
      `UPDATE activity SET heartbeat_at = now(), objects_processed = $2, objects_to_process = coalesce($3, objects_to_process),
              message = coalesce($4, message), ${sets}
        WHERE id = $1 RETURNING cancel_requested`,
      [activityId, p.objectsProcessed, p.objectsToProcess ?? null, p.message ?? null, ...params],
    );
    return { cancelRequested: row?.cancel_requested ?? true };
  }

  async cancelRequested(activityId: string): Promise<boolean> {
    const row = await this.s.row<{ cancel_requested: boolean; status: string }>(
      `SELECT cancel_requested, status FROM activity WHERE id = $1`,
      [activityId],
    );
    return !row || row.cancel_requested || row.status !== ActivityStatus.InProgress;
  }

  /**
   * Ends the run with its status and releases its locks. `Cancelled` sticks: a cancelled activity keeps
   * its status (and a cancel requested during the run turns a success into `Cancelled`).
   */
  async finish(activityId: string, f: RunFinish, before?: () => Promise<void>): Promise<ActivityStatus> {
    const { sets, params } = counterSets(f.counters, 11);
    return this.s.transaction(async () => {
      if (before) await before();
      const row = await this.s.row<{ status: ActivityStatus }>(
        `UPDATE activity SET
                status = CASE WHEN status = '${ActivityStatus.Cancelled}' THEN status
                              WHEN cancel_requested AND $2 <> '${ActivityStatus.FailedWithError}' THEN '${ActivityStatus.Cancelled}' ELSE $2 END,
                completed = now(), heartbeat_at = now(),
                execution_time_ms = (extract(epoch FROM now() - coalesce(executed, created)) * 1000)::bigint,
                objects_processed = $3, objects_to_process = greatest(coalesce($4, objects_to_process), $3),
                message = $5, warning_message = $6, error_message = $7, error_stack_trace = $8, execution_stats = $9,
                details = coalesce(details, '{}'::jsonb) || coalesce($10::jsonb, '{}'::jsonb), ${sets}
          WHERE id = $1 RETURNING status`,
        [
          activityId,
          f.status,
          f.objectsProcessed,
          f.objectsToProcess ?? null,
          f.message ?? null,
          f.warningMessage ?? null,
          f.errorMessage ?? null,
          f.errorStackTrace ?? null,
          f.executionStats ? JSON.stringify(f.executionStats) : null,
          null,
          ...params,
        ],
      );
      await this.s.count(`DELETE FROM run_lock WHERE activity_id = $1`, [activityId]);
      return row?.status ?? f.status;
    });
  }

  /** Ends an activity that never ran (refused before it started). */
  async refuse(activityId: string, status: ActivityStatus, message: string): Promise<void> {
    await this.s.count(
      `UPDATE activity SET status = CASE WHEN status = '${ActivityStatus.Cancelled}' THEN status ELSE $2 END, completed = now(), message = $3,
              error_message = CASE WHEN $2 = '${ActivityStatus.FailedWithError}' THEN $3 ELSE error_message END
        WHERE id = $1 AND status = '${ActivityStatus.InProgress}'`,
      [activityId, status, message],
    );
  }

  async setMessage(activityId: string, message: string): Promise<void> {
    await this.s.count(`UPDATE activity SET message = $2 WHERE id = $1 AND status = $3`, [activityId, message, ActivityStatus.InProgress]);
  }

  /**
   * Ends every claimed activity whose heartbeat is older than the timeout (its worker died): status
   * FailedWithError with a message naming the silence, and its locks released. Returns the ids.
   */
  async reapStale(timeoutSeconds: number): Promise<string[]> {
    return this.s.transaction(async () => {
      const rows = await this.s.rows<{ id: string }>(
        `UPDATE activity SET status = '${ActivityStatus.FailedWithError}', completed = now(),
                message = 'The run stopped: its worker stopped reporting (no heartbeat for ' || $1 || ' s). The next run continues from what was committed.',
                error_message = 'The worker running this activity stopped reporting (no heartbeat for ' || $1 || ' s); it probably crashed or was killed.',
                execution_time_ms = (extract(epoch FROM coalesce(heartbeat_at, now()) - coalesce(executed, created)) * 1000)::bigint
          WHERE status = '${ActivityStatus.InProgress}' AND claimed_at IS NOT NULL AND heartbeat_at < now() - make_interval(secs => $1)
          RETURNING id`,
        [timeoutSeconds],
      );
      const ids = rows.map((r) => r.id);
      // Locks of finished activities are dead weight too (e.g. a worker killed between finishing and releasing).
      await this.s.count(
        `DELETE FROM run_lock l USING activity a WHERE a.id = l.activity_id AND a.status <> '${ActivityStatus.InProgress}'`,
      );
      return ids;
    });
  }
}

function counterSets(c: RunCounters, firstParam: number): { sets: string; params: number[] } {
  const keys = Object.keys(COUNTER_COLUMNS) as Array<keyof RunCounters>;
  return {
    sets: keys.map((k, i) => `${COUNTER_COLUMNS[k]} = $${firstParam + i}`).join(', '),
    params: keys.map((k) => c[k]),
  };
}
