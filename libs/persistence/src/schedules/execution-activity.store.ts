import { ActivityStatus } from '@meridian/domain';
import { ManagerStatements } from './manager-statements';

/** How an execution's own activity ends. */
export interface ExecutionActivityEnd {
  status: ActivityStatus;
  completed: Date;
  message: string;
  errorMessage: string | null;
  objectsProcessed: number;
}

/**
 * The activity rows schedules write: an execution's own activity (same id as the execution) and the
 * run-profile activities its steps start. Every write is conditional on the activity still being InProgress.
 */
export class ExecutionActivityStore extends ManagerStatements {
  /** The execution started running. */
  async markRunning(executionId: string, executed: Date, message: string): Promise<void> {
    await this.count(`UPDATE activity SET executed = $2, message = $3 WHERE id = $1 AND status = $4`, [
      executionId,
      executed,
      message,
      ActivityStatus.InProgress,
    ]);
  }

  async finish(executionId: string, end: ExecutionActivityEnd): Promise<void> {
    await this.count(
      `UPDATE activity SET status = $2, completed = $3, message = $4, error_message = $5, objects_processed = $6,
              execution_time_ms = CASE WHEN executed IS NULL THEN NULL ELSE greatest(0, (extract(epoch FROM ($3::timestamptz - executed)) * 1000))::bigint END
        WHERE id = $1 AND status = $7`,
      [executionId, end.status, end.completed, end.message, end.errorMessage, end.objectsProcessed, ActivityStatus.InProgress],
    );
  }

  /** The execution was cancelled through the API. */
  async cancel(executionId: string, completed: Date, message: string): Promise<void> {
    await this.count(
      `UPDATE activity SET status = $2, completed = $3, message = $4,
              execution_time_ms = CASE WHEN executed IS NULL THEN NULL ELSE (extract(epoch FROM ($3::timestamptz - executed)) * 1000)::bigint END
        WHERE id = $1 AND status = $5`,
      [executionId, ActivityStatus.Cancelled, completed, message, ActivityStatus.InProgress],
    );
  }

  /**
   * Requests cancellation of run-profile activities (the worker stops at its next page boundary and ends
   * them Cancelled); an activity no worker has claimed yet is Cancelled at once, so it never starts.
   */
  async cancelRuns(activityIds: readonly string[], now: Date, message: string): Promise<void> {
    if (!activityIds.length) return;
    await this.count(
      `UPDATE activity SET cancel_requested = true,
              status = CASE WHEN claimed_at IS NULL THEN $2 ELSE status END,
              completed = CASE WHEN claimed_at IS NULL THEN $3::timestamptz ELSE completed END,
              message = CASE WHEN claimed_at IS NULL THEN $4 ELSE message END
        WHERE id = ANY($1::uuid[]) AND status = $5`,
      [activityIds, ActivityStatus.Cancelled, now, message, ActivityStatus.InProgress],
    );
  }

  /** States of run-profile activities: status, whether a worker claimed it, its error and end. */
  async runStates(activityIds: readonly string[]): Promise<RunActivityState[]> {
    if (!activityIds.length) return [];
    return this.rows<RunActivityState>(
      `SELECT id, status, claimed_at IS NOT NULL AS claimed, error_message AS "errorMessage", completed FROM activity WHERE id = ANY($1::uuid[])`,
      [activityIds],
    );
  }
}

export interface RunActivityState {
  id: string;
  status: ActivityStatus;
  claimed: boolean;
  errorMessage: string | null;
  completed: Date | null;
}
