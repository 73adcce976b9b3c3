import { ExecutionStatus } from '@meridian/domain';
import { ManagerStatements } from './manager-statements';

/** An execution a scheduler drives. */
export interface RunningExecutionRecord {
  id: string;
  scheduleId: string;
  scheduleName: string;
  status: ExecutionStatus;
  currentStepIndex: number;
  initiatedByType: string;
  initiatedById: string | null;
  initiatedByName: string | null;
}

/**
 * The status and step index of executions while a scheduler runs them. Every write is conditional on
 * the row still being in the state it was read in, so Cancelled (and any finished state) is never overwritten.
 */
export class RunningExecutionStore extends ManagerStatements {
  /** The Queued and InProgress executions a scheduler has claimed, oldest first. */
  async claimedBy(instanceId: string): Promise<RunningExecutionRecord[]> {
    return this.rows<RunningExecutionRecord>(
      `SELECT id, schedule_id AS "scheduleId", schedule_name AS "scheduleName", status, current_step_index AS "currentStepIndex",
              initiated_by_type AS "initiatedByType", initiated_by_id AS "initiatedById", initiated_by_name AS "initiatedByName"
         FROM schedule_execution WHERE status IN ($2, $3) AND claimed_by = $1 ORDER BY queued_at`,
      [instanceId, ExecutionStatus.Queued, ExecutionStatus.InProgress],
    );
  }

  /** Current statuses; executions that no longer exist are absent. */
  async statuses(executionIds: readonly string[]): Promise<Map<string, ExecutionStatus>> {
    if (!executionIds.length) return new Map();
    const rows = await this.rows<{ id: string; status: ExecutionStatus }>(
      `SELECT id, status FROM schedule_execution WHERE id = ANY($1::uuid[])`,
      [executionIds],
    );
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  /** Queued → InProgress; false when it is no longer Queued. */
  async start(executionId: string, now: Date): Promise<boolean> {
    return (
      (await this.count(`UPDATE schedule_execution SET status = $2, started_at = $3 WHERE id = $1 AND status = $4`, [
        executionId,
        ExecutionStatus.InProgress,
        now,
        ExecutionStatus.Queued,
      ])) > 0
    );
  }

  /** Moves an InProgress execution from one step index to the next; false when something changed it meanwhile. */
  async moveToIndex(executionId: string, from: number, to: number): Promise<boolean> {
    return (
      (await this.count(`UPDATE schedule_execution SET current_step_index = $2 WHERE id = $1 AND status = $3 AND current_step_index = $4`, [
        executionId,
        to,
        ExecutionStatus.InProgress,
        from,
      ])) > 0
    );
  }

  /** Ends an InProgress execution (Completed or Failed) and releases its claim; false when it was no longer InProgress. */
  async finish(executionId: string, status: ExecutionStatus, now: Date, message: string | null): Promise<boolean> {
    return (
      (await this.count(
        `UPDATE schedule_execution SET status = $2, completed_at = $3, error_message = $4, claimed_by = NULL, heartbeat_at = NULL
          WHERE id = $1 AND status = $5`,
        [executionId, status, now, message, ExecutionStatus.InProgress],
      )) > 0
    );
  }
}
