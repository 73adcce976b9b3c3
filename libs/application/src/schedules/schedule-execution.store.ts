import { ActivityOperationType, ActivityStatus, ActivityTargetType, InitiatedByType } from '@meridian/domain';
import { ActivityEntity } from '@meridian/persistence';
import { EntityManager } from 'typeorm';
import { Initiator } from '../activities/initiator';
import { ExecutionStatus, StepStatus } from './execution-status';

/** `initiatedByType` of an execution a cron trigger started (spec 2.8). */
export const CRON_INITIATED_BY = 'NotSet';

/** Who the activities of a cron-triggered execution (and of the run profiles it starts) are attributed to. */
export const SCHEDULER_INITIATOR: Initiator = { type: InitiatedByType.System, id: null, name: 'Scheduler' };

export interface ExecutionTrigger {
  /** The cron slot the execution is for; null for a manual run (which never conflicts). */
  dueAt: Date | null;
  /** The caller of a manual run; null for a cron trigger. */
  initiator: Initiator | null;
  queuedAt: Date;
}

export interface ScheduleRef {
  id: string;
  name: string;
}

/**
 * Creates a Queued execution of a schedule with a Pending copy of each of its steps, and the
 * execution's activity (same id as the execution), in the caller's transaction. A cron execution is
 * unique per (schedule, due time): when that slot already has one, nothing is written and null is returned.
 */
export async function insertExecution(m: EntityManager, schedule: ScheduleRef, trigger: ExecutionTrigger): Promise<string | null> {
  const byType = trigger.initiator ? trigger.initiator.type : CRON_INITIATED_BY;
  const rows: Array<{ id: string; total: number; steps: number }> = await m.query(
    `INSERT INTO schedule_execution (schedule_id, schedule_name, status, current_step_index, total_steps, due_at, queued_at,
                                     initiated_by_type, initiated_by_id, initiated_by_name)
     SELECT $1, $2, $3, coalesce(min(step_index), 0), count(DISTINCT step_index), $4, $5, $6, $7, $8
       FROM schedule_step WHERE schedule_id = $1
     ON CONFLICT (schedule_id, due_at) WHERE due_at IS NOT NULL DO NOTHING
     RETURNING id, total_steps AS total, (SELECT count(*)::int FROM schedule_step WHERE schedule_id = $1) AS steps`,
    [
      schedule.id,
      schedule.name.slice(0, 200),
      ExecutionStatus.Queued,
      trigger.dueAt,
      trigger.queuedAt,
      byType,
      trigger.initiator?.id ?? null,
      trigger.initiator?.name ?? null,
    ],
  );
  if (!rows.length) return null;
  const executionId = rows[0].id;
  await m.query(
    `INSERT INTO schedule_execution_step (execution_id, step_id, step_index, name, step_type, execution_mode, continue_on_failure,
                                          timeout_seconds, connected_system_id, run_profile_id, status)
     SELECT $1, s.id, s.step_index,
            left(coalesce(nullif(btrim(s.name), ''),
                          CASE WHEN s.step_type = 'RunProfile' THEN coalesce(cs.name || ' - ' || rp.name, 'Run profile ' || s.run_profile_id, 'Run profile')
                               ELSE s.step_type || ' ' || coalesce(s.executable_path, s.script_path, s.sql_script_path, '') END), 300),
            s.step_type, s.execution_mode, s.continue_on_failure, s.timeout_seconds, s.connected_system_id, s.run_profile_id, $3
       FROM schedule_step s
       LEFT JOIN connected_system_run_profile rp ON rp.id = s.run_profile_id
       LEFT JOIN connected_system cs ON cs.id = s.connected_system_id
      WHERE s.schedule_id = $2`,
    [executionId, schedule.id, StepStatus.Pending],
  );
  const initiator = trigger.initiator ?? SCHEDULER_INITIATOR;
  await m.getRepository(ActivityEntity).insert({
    id: executionId,
    created: trigger.queuedAt,
    status: ActivityStatus.InProgress,
    targetType: ActivityTargetType.ScheduleExecution,
    targetOperationType: ActivityOperationType.Execute,
    targetId: executionId,
    targetName: schedule.name,
    message: trigger.dueAt
      ? `Queued by the cron trigger due at ${trigger.dueAt.toISOString()}.`
      : `Queued by a manual run (${initiator.name ?? initiator.type}).`,
    details: {
      scheduleId: schedule.id,
      trigger: trigger.dueAt ? 'Cron' : 'Manual',
      dueAt: trigger.dueAt ? trigger.dueAt.toISOString() : undefined,
      totalSteps: rows[0].total,
    },
    initiatedByType: initiator.type,
    initiatedById: initiator.id,
    initiatedByName: initiator.name,
    objectsToProcess: rows[0].steps,
    objectsProcessed: 0,
  });
  return executionId;
}

/** Whether the schedule has an execution that is still Queued, InProgress or Paused. */
export async function activeExecutionOf(m: EntityManager, scheduleId: string): Promise<{ id: string; status: string } | null> {
  const rows: Array<{ id: string; status: string }> = await m.query(
    `SELECT id, status FROM schedule_execution WHERE schedule_id = $1 AND status IN ($2, $3, $4) ORDER BY queued_at LIMIT 1`,
    [scheduleId, ExecutionStatus.Queued, ExecutionStatus.InProgress, ExecutionStatus.Paused],
  );
  return rows[0] ?? null;
}
