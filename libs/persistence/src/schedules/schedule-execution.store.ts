import { ACTIVE_EXECUTION_STATUSES, ExecutionStatus, ScheduleStepType, StepStatus } from '@meridian/domain';
import { ManagerStatements } from './manager-statements';

/** A Queued execution to create: who or what triggered it, and when. */
export interface NewExecution {
  scheduleId: string;
  scheduleName: string;
  /** The cron slot; null for a manual run. */
  dueAt: Date | null;
  queuedAt: Date;
  initiatedByType: string;
  initiatedById: string | null;
  initiatedByName: string | null;
}

export interface InsertedExecution {
  id: string;
  totalSteps: number;
  stepCount: number;
}

export interface ExecutionStatusRow {
  id: string;
  status: ExecutionStatus;
}

/** Rows of `schedule_execution` and their step copies, as the API and the dispatcher write them. */
export class ScheduleExecutionStore extends ManagerStatements {
  /**
   * Inserts a Queued execution with a Pending copy of each step of its schedule. A cron execution is
   * unique per (schedule, due time): when that slot already has one, nothing is written and null is returned.
   */
  async insertQueued(e: NewExecution): Promise<InsertedExecution | null> {
    const inserted = await this.row<InsertedExecution>(
      `INSERT INTO schedule_execution (schedule_id, schedule_name, status, current_step_index, total_steps, due_at, queued_at,
                                       initiated_by_type, initiated_by_id, initiated_by_name)
       SELECT $1, $2, $3, coalesce(min(step_index), 0), count(DISTINCT step_index), $4, $5, $6, $7, $8
         FROM schedule_step WHERE schedule_id = $1
       ON CONFLICT (schedule_id, due_at) WHERE due_at IS NOT NULL DO NOTHING
       RETURNING id, total_steps AS "totalSteps", (SELECT count(*)::int FROM schedule_step WHERE schedule_id = $1) AS "stepCount"`,
      [
        e.scheduleId,
        e.scheduleName.slice(0, 200),
        ExecutionStatus.Queued,
        e.dueAt,
        e.queuedAt,
        e.initiatedByType,
        e.initiatedById,
        e.initiatedByName,
      ],
    );
    if (!inserted) return null;
    await this.count(
      `INSERT INTO schedule_execution_step (execution_id, step_id, step_index, name, step_type, execution_mode, continue_on_failure,
                                            timeout_seconds, connected_system_id, run_profile_id, status)
       SELECT $1, s.id, s.step_index,
              left(coalesce(nullif(btrim(s.name), ''),
                            CASE WHEN s.step_type = $4 THEN coalesce(cs.name || ' - ' || rp.name, 'Run profile ' || s.run_profile_id, 'Run profile')
                                 ELSE s.step_type || ' ' || coalesce(s.executable_path, s.script_path, s.sql_script_path, '') END), 300),
              s.step_type, s.execution_mode, s.continue_on_failure, s.timeout_seconds, s.connected_system_id, s.run_profile_id, $3
         FROM schedule_step s
         LEFT JOIN connected_system_run_profile rp ON rp.id = s.run_profile_id
         LEFT JOIN connected_system cs ON cs.id = s.connected_system_id
        WHERE s.schedule_id = $2`,
      [inserted.id, e.scheduleId, StepStatus.Pending, ScheduleStepType.RunProfile],
    );
    return inserted;
  }

  /** The schedule's executions that are still Queued, InProgress or Paused, by queue time. */
  async activeOf(scheduleId: string, order: 'oldest first' | 'newest first' = 'oldest first'): Promise<ExecutionStatusRow[]> {
    return this.rows<ExecutionStatusRow>(
      `SELECT id, status FROM schedule_execution WHERE schedule_id = $1 AND status = ANY($2::text[])
        ORDER BY queued_at ${order === 'newest first' ? 'DESC' : 'ASC'}`,
      [scheduleId, ACTIVE_EXECUTION_STATUSES],
    );
  }

  /** The execution a cron slot already has, if any. */
  async idForSlot(scheduleId: string, dueAt: Date): Promise<string | null> {
    return (
      (await this.row<{ id: string }>(`SELECT id FROM schedule_execution WHERE schedule_id = $1 AND due_at = $2`, [scheduleId, dueAt]))
        ?.id ?? null
    );
  }

  /** Moves every execution in one status to another (maintenance mode: Queued ⇄ Paused). */
  async moveAll(from: ExecutionStatus, to: ExecutionStatus): Promise<Array<{ id: string; scheduleName: string }>> {
    return this.rows(`UPDATE schedule_execution SET status = $2 WHERE status = $1 RETURNING id, schedule_name AS "scheduleName"`, [
      from,
      to,
    ]);
  }

  /** Ends an execution Cancelled (final: nothing overwrites it). */
  async cancel(id: string, now: Date, message: string): Promise<void> {
    await this.count(
      `UPDATE schedule_execution SET status = $2, cancel_requested = true, completed_at = $3, error_message = $4 WHERE id = $1`,
      [id, ExecutionStatus.Cancelled, now, message],
    );
  }

  /** Cancels the execution's steps that are in one of the statuses. */
  async cancelSteps(id: string, statuses: readonly StepStatus[], now: Date, message: string): Promise<void> {
    await this.count(
      `UPDATE schedule_execution_step SET status = $2, completed_at = $3, error_message = coalesce(error_message, $4)
        WHERE execution_id = $1 AND status = ANY($5::text[])`,
      [id, StepStatus.Cancelled, now, message, statuses],
    );
  }

  /** Activities of the execution's RunProfile steps that are in one of the statuses. */
  async runActivityIds(id: string, statuses: readonly StepStatus[]): Promise<string[]> {
    const rows = await this.rows<{ activityId: string }>(
      `SELECT activity_id AS "activityId" FROM schedule_execution_step
        WHERE execution_id = $1 AND step_type = $2 AND activity_id IS NOT NULL AND status = ANY($3::text[])`,
      [id, ScheduleStepType.RunProfile, statuses],
    );
    return rows.map((r) => r.activityId);
  }
}
