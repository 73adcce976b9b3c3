import { ActivityOperationType, ActivityStatus, ActivityTargetType, InitiatedByType, ScheduleTriggerType } from '@meridian/domain';
import { ActivityEntity, ScheduleExecutionStore } from '@meridian/persistence';
import { EntityManager } from 'typeorm';
import { Initiator } from '../activities/initiator';

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
  const inserted = await new ScheduleExecutionStore(m).insertQueued({
    scheduleId: schedule.id,
    scheduleName: schedule.name,
    dueAt: trigger.dueAt,
    queuedAt: trigger.queuedAt,
    initiatedByType: trigger.initiator ? trigger.initiator.type : CRON_INITIATED_BY,
    initiatedById: trigger.initiator?.id ?? null,
    initiatedByName: trigger.initiator?.name ?? null,
  });
  if (!inserted) return null;
  const initiator = trigger.initiator ?? SCHEDULER_INITIATOR;
  await m.getRepository(ActivityEntity).insert({
    id: inserted.id,
    created: trigger.queuedAt,
    status: ActivityStatus.InProgress,
    targetType: ActivityTargetType.ScheduleExecution,
    targetOperationType: ActivityOperationType.Execute,
    targetId: inserted.id,
    targetName: schedule.name,
    message: trigger.dueAt
      ? `Queued by the cron trigger due at ${trigger.dueAt.toISOString()}.`
      : `Queued by a manual run (${initiator.name ?? initiator.type}).`,
    details: {
      scheduleId: schedule.id,
      trigger: trigger.dueAt ? ScheduleTriggerType.Cron : ScheduleTriggerType.Manual,
      dueAt: trigger.dueAt ? trigger.dueAt.toISOString() : undefined,
      totalSteps: inserted.totalSteps,
    },
    initiatedByType: initiator.type,
    initiatedById: initiator.id,
    initiatedByName: initiator.name,
    objectsToProcess: inserted.stepCount,
    objectsProcessed: 0,
  });
  return inserted.id;
}
