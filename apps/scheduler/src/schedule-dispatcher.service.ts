import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { dueTimesBetween, ExecutionStatus, nextRunTime, SchedulePattern } from '@meridian/domain';
import { insertExecution, ScheduleClock } from '@meridian/application';
import { DueScheduleRecord, ScheduleDueStore, ScheduleExecutionStore } from '@meridian/persistence';
import { APP_CONFIG, AppConfig, classifyDependencyError, Logger, LOGGER } from '@meridian/platform';
import { DataSource, EntityManager } from 'typeorm';
import { SCHEDULER_OPTIONS, SchedulerOptions } from './scheduler.options';

/** A slot less than this late is on time, whatever the catch-up window (ticks are about a second apart). */
export const ON_TIME_TOLERANCE_MS = 60_000;
const SLOT_BATCH = 10_000;
const DEFAULT_DISPATCH_BATCH_SIZE = 100;

export type DispatchOutcome = 'Queued' | 'SkippedActive' | 'Missed' | 'AlreadyQueued' | 'Invalid';

export interface DispatchResult {
  scheduleId: string;
  outcome: DispatchOutcome;
  /** The slot the decision was about (the latest due slot, or the missed one). */
  dueAt: Date | null;
  executionId: string | null;
  nextRunTime: Date | null;
}

function patternOf(s: DueScheduleRecord): SchedulePattern {
  return {
    triggerType: s.triggerType as SchedulePattern['triggerType'],
    patternType: s.patternType as SchedulePattern['patternType'],
    daysOfWeek: s.daysOfWeek,
    runTimes: s.runTimes,
    intervalValue: s.intervalValue,
    intervalUnit: s.intervalUnit as SchedulePattern['intervalUnit'],
    intervalWindowStart: s.intervalWindowStart,
    intervalWindowEnd: s.intervalWindowEnd,
    cronExpression: s.cronExpression,
    timeZone: s.timeZone,
  };
}

/** The latest due slot in [from, now]: the stored next run time itself or a later slot of the pattern. */
function latestSlot(p: SchedulePattern, stored: Date, from: Date, now: Date): Date | null {
  let latest: Date | null = stored.getTime() >= from.getTime() ? stored : null;
  let cursor = new Date(Math.max(stored.getTime(), from.getTime() - 1));
  for (;;) {
    const slots = dueTimesBetween(p, cursor, now, SLOT_BATCH);
    if (slots.length) latest = cursor = slots[slots.length - 1];
    if (slots.length < SLOT_BATCH) return latest;
  }
}

/**
 * Cron dispatch (leader only). For each enabled Cron schedule whose next_run_time has come, ONE
 * transaction locks the schedule row (FOR UPDATE SKIP LOCKED, re-checking that it is still due),
 * decides, inserts the execution under the unique (schedule_id, due_at) key and advances
 * next_run_time/last_run_time — so two schedulers, a leader change or a restart can neither skip nor
 * double a run.
 *
 * - Several missed slots run once, for the latest slot, when that slot is within the catch-up window
 *   (MERIDIAN_SCHEDULER_CATCH_UP_MINUTES; slots less than a minute late are always on time).
 * - Older than the window: not run (logged); next_run_time moves to the next future slot.
 * - An execution of the schedule still Queued, InProgress or Paused: the trigger is skipped (logged),
 *   next_run_time still advances.
 */
@Injectable()
export class ScheduleDispatcher {
  private readonly batchSize: number;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: ScheduleClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SCHEDULER_OPTIONS) options: SchedulerOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.batchSize = options.dispatchBatchSize ?? DEFAULT_DISPATCH_BATCH_SIZE;
  }

  /** Maintenance mode holds queued work: Queued executions become Paused, and Queued again when it ends. */
  async applyMaintenance(enabled: boolean): Promise<number> {
    const [from, to] = enabled ? [ExecutionStatus.Queued, ExecutionStatus.Paused] : [ExecutionStatus.Paused, ExecutionStatus.Queued];
    const rows = await new ScheduleExecutionStore(this.ds.manager).moveAll(from, to);
    for (const row of rows) {
      this.logger.log({
        level: 'information',
        message: `Schedule execution ${row.id} ("${row.scheduleName}") ${enabled ? 'paused: maintenance mode is on' : 'queued again: maintenance mode ended'}.`,
        scheduleExecutionId: row.id,
      });
    }
    return rows.length;
  }

  /** Dispatches every due schedule (up to batchSize per call). */
  async dispatchDue(): Promise<DispatchResult[]> {
    const now = this.clock.now();
    const due = await new ScheduleDueStore(this.ds.manager).dueIds(now, this.batchSize);
    const results: DispatchResult[] = [];
    for (const id of due) {
      try {
        const result = await this.ds.transaction((m) => this.dispatchOne(m, id, now));
        if (result) results.push(result);
      } catch (e) {
        // The database going away is the tick's outage (one warning), not an error of this schedule.
        if (classifyDependencyError(e)) throw e;
        this.logger.log({
          level: 'error',
          message: `Schedule ${id} could not be dispatched: ${(e as Error).message}`,
          error: e,
          scheduleId: id,
        });
      }
    }
    return results;
  }

  private async dispatchOne(m: EntityManager, id: string, now: Date): Promise<DispatchResult | null> {
    const schedules = new ScheduleDueStore(m);
    const executions = new ScheduleExecutionStore(m);
    const s = await schedules.lockDue(id, now);
    if (!s) return null; // another scheduler has it, or it is no longer due
    const pattern = patternOf(s);
    const windowMs = Math.max(this.config.schedulerCatchUpWindowMs, ON_TIME_TOLERANCE_MS);
    let slot: Date | null;
    let next: Date | null;
    try {
      slot = latestSlot(pattern, s.nextRunTime, new Date(now.getTime() - windowMs), now);
      next = nextRunTime(pattern, now);
    } catch (e) {
      await schedules.advance(id, null, null);
      this.logger.log({
        level: 'error',
        message: `Schedule "${s.name}" (${id}) has an invalid pattern and will not run until it is saved again: ${(e as Error).message}`,
        scheduleId: id,
      });
      return { scheduleId: id, outcome: 'Invalid', dueAt: null, executionId: null, nextRunTime: null };
    }
    const nextText = next ? next.toISOString() : 'never';
    let result: DispatchResult;
    if (!slot) {
      const missed = s.nextRunTime;
      this.logger.log({
        level: 'warning',
        message:
          `Schedule "${s.name}": the run due at ${missed.toISOString()} was missed by more than the catch-up window ` +
          `(${Math.round(windowMs / 60_000)} min) and does not run; next run at ${nextText}.`,
        scheduleId: id,
      });
      result = { scheduleId: id, outcome: 'Missed', dueAt: missed, executionId: null, nextRunTime: next };
    } else {
      const existing = await executions.idForSlot(id, slot);
      const active = existing ? null : ((await executions.activeOf(id))[0] ?? null);
      if (existing) {
        result = { scheduleId: id, outcome: 'AlreadyQueued', dueAt: slot, executionId: existing, nextRunTime: next };
      } else if (active) {
        this.logger.log({
          level: 'warning',
          message:
            `Schedule "${s.name}": the cron trigger due at ${slot.toISOString()} is skipped because execution ${active.id} is still ${active.status}; ` +
            `next run at ${nextText}.`,
          scheduleId: id,
          scheduleExecutionId: active.id,
        });
        result = { scheduleId: id, outcome: 'SkippedActive', dueAt: slot, executionId: null, nextRunTime: next };
      } else {
        const executionId = await insertExecution(m, { id, name: s.name }, { dueAt: slot, initiator: null, queuedAt: now });
        const late =
          now.getTime() - slot.getTime() > ON_TIME_TOLERANCE_MS
            ? ` (catching up: it was due ${Math.round((now.getTime() - slot.getTime()) / 60_000)} min ago; earlier missed slots do not run)`
            : '';
        this.logger.log({
          level: 'information',
          message: `Schedule "${s.name}": cron trigger due at ${slot.toISOString()} queued execution ${executionId}${late}; next run at ${nextText}.`,
          scheduleId: id,
          scheduleExecutionId: executionId,
        });
        result = { scheduleId: id, outcome: executionId ? 'Queued' : 'AlreadyQueued', dueAt: slot, executionId, nextRunTime: next };
      }
    }
    const ran = result.outcome === 'Queued' || result.outcome === 'AlreadyQueued';
    await schedules.advance(id, next, ran ? slot : null);
    return result;
  }
}
