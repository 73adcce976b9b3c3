import { ScheduleTriggerType } from '@meridian/domain';
import { ManagerStatements } from './manager-statements';

/** An enabled Cron schedule whose next run time has come, with what decides when it fires. */
export interface DueScheduleRecord {
  id: string;
  name: string;
  triggerType: string;
  patternType: string;
  daysOfWeek: string | null;
  runTimes: string | null;
  intervalValue: number | null;
  intervalUnit: string | null;
  intervalWindowStart: string | null;
  intervalWindowEnd: string | null;
  cronExpression: string | null;
  timeZone: string;
  nextRunTime: Date;
}

/** The cron side of `schedule`: which schedules are due, and their next and last run times. */
export class ScheduleDueStore extends ManagerStatements {
  /** Ids of the enabled Cron schedules due at `now`, the longest due first. */
  async dueIds(now: Date, limit: number): Promise<string[]> {
    const rows = await this.rows<{ id: string }>(
      `SELECT id FROM schedule WHERE is_enabled AND trigger_type = $3 AND next_run_time <= $1 ORDER BY next_run_time LIMIT $2`,
      [now, limit, ScheduleTriggerType.Cron],
    );
    return rows.map((r) => r.id);
  }

  /** Locks a schedule that is still due (SKIP LOCKED: null when another scheduler has it or it is no longer due). */
  async lockDue(id: string, now: Date): Promise<DueScheduleRecord | null> {
    return this.row<DueScheduleRecord>(
      `SELECT id, name, trigger_type AS "triggerType", pattern_type AS "patternType", days_of_week AS "daysOfWeek", run_times AS "runTimes",
              interval_value AS "intervalValue", interval_unit AS "intervalUnit", interval_window_start AS "intervalWindowStart",
              interval_window_end AS "intervalWindowEnd", cron_expression AS "cronExpression", time_zone AS "timeZone", next_run_time AS "nextRunTime"
         FROM schedule WHERE id = $1 AND is_enabled AND trigger_type = $3 AND next_run_time <= $2 FOR UPDATE SKIP LOCKED`,
      [id, now, ScheduleTriggerType.Cron],
    );
  }

  /** Sets the next run time and, when a slot ran, the last run time. */
  async advance(id: string, nextRunTime: Date | null, ranSlot: Date | null): Promise<void> {
    await this.count(`UPDATE schedule SET next_run_time = $2, last_run_time = coalesce($3::timestamptz, last_run_time) WHERE id = $1`, [
      id,
      nextRunTime,
      ranSlot,
    ]);
  }
}
