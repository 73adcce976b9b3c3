import {
  ActivityStatus,
  ExecutionStatus,
  FINISHED_EXECUTION_STATUSES,
  RUNNING_STEP_STATUSES,
  ScheduleStepType,
  StepStatus,
} from '@meridian/domain';
import { ManagerStatements } from './manager-statements';

/** An execution a scheduler may take: nobody drives it, or its scheduler stopped heart-beating. */
export interface ClaimableExecution {
  id: string;
  status: ExecutionStatus;
  /** The scheduler that had it (its heartbeat is stale); null for a Queued execution nobody took yet. */
  claimedBy: string | null;
  scheduleName: string;
}

/**
 * Which scheduler replica drives an execution (`claimed_by`) and when it last said so (`heartbeat_at`).
 * A claim whose heartbeat is older than the stale limit may be taken over.
 */
export class ExecutionClaimStore extends ManagerStatements {
  /** Locks (SKIP LOCKED) executions to claim; in maintenance mode only InProgress ones (Queued ones wait). */
  async lockClaimable(instanceId: string, staleBefore: Date, maintenance: boolean, limit: number): Promise<ClaimableExecution[]> {
    return this.rows<ClaimableExecution>(
      `SELECT id, status, claimed_by AS "claimedBy", schedule_name AS "scheduleName" FROM schedule_execution
        WHERE status IN ($2, $3) AND claimed_by IS DISTINCT FROM $1
          AND (claimed_by IS NULL OR heartbeat_at IS NULL OR heartbeat_at < $4)
          AND (status = $3 OR NOT $5::boolean)
        ORDER BY queued_at LIMIT $6 FOR UPDATE SKIP LOCKED`,
      [instanceId, ExecutionStatus.Queued, ExecutionStatus.InProgress, staleBefore, maintenance, limit],
    );
  }

  /**
   * Fails the steps a previous scheduler ran itself (processes, SQL scripts, run profiles it had not
   * queued yet): they died with it, their outcome is unknown. Call before `claim` (the message names the
   * previous claim). Answers the number of steps failed per execution.
   */
  async failInterruptedSteps(executionIds: readonly string[], now: Date): Promise<Map<string, number>> {
    if (!executionIds.length) return new Map();
    const rows = await this.rows<{ executionId: string; failed: number }>(
      `WITH failed AS (
         UPDATE schedule_execution_step es SET status = $2, completed_at = $3,
                error_message = 'interrupted: the scheduler running this step (' || e.claimed_by || ') stopped before it finished; its outcome is unknown.'
           FROM schedule_execution e
          WHERE e.id = es.execution_id AND e.id = ANY($1::uuid[]) AND e.claimed_by IS NOT NULL
            AND es.status IN ($4, $5) AND (es.step_type <> $6 OR es.activity_id IS NULL)
         RETURNING es.execution_id)
       SELECT execution_id AS "executionId", count(*)::int AS failed FROM failed GROUP BY execution_id`,
      [executionIds, StepStatus.Failed, now, StepStatus.Queued, StepStatus.Processing, ScheduleStepType.RunProfile],
    );
    return new Map(rows.map((r) => [r.executionId, r.failed]));
  }

  /** Run-profile activities the executions' Queued steps started that no worker has claimed yet (their job may be lost). */
  async unclaimedRunActivityIds(executionIds: readonly string[]): Promise<string[]> {
    if (!executionIds.length) return [];
    const rows = await this.rows<{ activityId: string }>(
      `SELECT es.activity_id AS "activityId" FROM schedule_execution_step es JOIN activity a ON a.id = es.activity_id
        WHERE es.execution_id = ANY($1::uuid[]) AND es.status = $2 AND a.status = $3 AND a.claimed_at IS NULL`,
      [executionIds, StepStatus.Queued, ActivityStatus.InProgress],
    );
    return rows.map((r) => r.activityId);
  }

  async claim(executionIds: readonly string[], instanceId: string, now: Date): Promise<void> {
    await this.count(`UPDATE schedule_execution SET claimed_by = $1, heartbeat_at = $2 WHERE id = ANY($3::uuid[])`, [
      instanceId,
      now,
      executionIds,
    ]);
  }

  async heartbeat(executionIds: readonly string[], instanceId: string, now: Date): Promise<void> {
    if (!executionIds.length) return;
    await this.count(`UPDATE schedule_execution SET heartbeat_at = $2 WHERE id = ANY($1::uuid[]) AND claimed_by = $3`, [
      executionIds,
      now,
      instanceId,
    ]);
  }

  /**
   * Finished executions still claimed by a scheduler that stopped heart-beating: their unfinished steps
   * end (Cancelled with a cancelled execution, Failed otherwise) and the claim goes. Answers their ids.
   */
  async sweepAbandoned(instanceId: string, staleBefore: Date, now: Date, limit: number): Promise<string[]> {
    const rows = await this.rows<{ id: string }>(
      `WITH abandoned AS (
         SELECT id, status, claimed_by FROM schedule_execution
          WHERE status = ANY($2::text[]) AND claimed_by IS NOT NULL AND claimed_by <> $1 AND (heartbeat_at IS NULL OR heartbeat_at < $3)
          LIMIT $4 FOR UPDATE SKIP LOCKED),
       ended AS (
         UPDATE schedule_execution_step es SET status = CASE WHEN a.status = $5 THEN $6 ELSE $7 END, completed_at = $8,
                error_message = coalesce(es.error_message, 'interrupted: the scheduler running this step (' || a.claimed_by || ') stopped.')
           FROM abandoned a WHERE es.execution_id = a.id AND es.status = ANY($9::text[]))
       UPDATE schedule_execution e SET claimed_by = NULL, heartbeat_at = NULL FROM abandoned a WHERE e.id = a.id RETURNING e.id`,
      [
        instanceId,
        FINISHED_EXECUTION_STATUSES,
        staleBefore,
        limit,
        ExecutionStatus.Cancelled,
        StepStatus.Cancelled,
        StepStatus.Failed,
        now,
        RUNNING_STEP_STATUSES,
      ],
    );
    return rows.map((r) => r.id);
  }

  /** Gives an execution back (it stays as it is; the leader picks it up at once). */
  async release(executionId: string, instanceId: string): Promise<void> {
    await this.count(`UPDATE schedule_execution SET claimed_by = NULL, heartbeat_at = NULL WHERE id = $1 AND claimed_by = $2`, [
      executionId,
      instanceId,
    ]);
  }

  /** Gives a finished execution back once nothing of it runs here any more. */
  async releaseIfFinished(executionId: string, instanceId: string): Promise<void> {
    await this.count(
      `UPDATE schedule_execution SET claimed_by = NULL, heartbeat_at = NULL WHERE id = $1 AND claimed_by = $2 AND status = ANY($3::text[])`,
      [executionId, instanceId, FINISHED_EXECUTION_STATUSES],
    );
  }

  /** Gives back every execution of a scheduler that stops. */
  async releaseAll(instanceId: string): Promise<void> {
    await this.count(`UPDATE schedule_execution SET claimed_by = NULL, heartbeat_at = NULL WHERE claimed_by = $1`, [instanceId]);
  }
}
