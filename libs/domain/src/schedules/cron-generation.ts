import { CRON_LINE_SEPARATOR, splitCronLines } from './cron-syntax';
import { parseDaysOfWeek, parseRunTimes, parseTimeOfDay, SchedulePattern, validateSchedulePattern } from './schedule-pattern';

const MINUTES_PER_DAY = 24 * 60;

/** `1,2,3,5` → `1-3,5`: runs of three or more consecutive numbers become ranges. */
export function compactList(values: readonly number[]): string {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j += 1;
    if (j - i >= 2) parts.push(`${sorted[i]}-${sorted[j]}`);
    else for (let k = i; k <= j; k += 1) parts.push(String(sorted[k]));
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * The local times of day (minutes since midnight, ascending) a SpecificTimes or Interval pattern
 * fires at on each selected day, or null when the pattern lacks what it needs. An Interval starts at
 * the window start and steps by the interval while it is not later than the window end (the end is
 * inclusive), so 08:15-10:00 every 30 minutes is 08:15, 08:45, 09:15, 09:45.
 */
export function timesOfDay(p: SchedulePattern): number[] | null {
  if (p.patternType === 'SpecificTimes') {
    return typeof p.runTimes === 'string' && p.runTimes.trim() ? (parseRunTimes(p.runTimes).value ?? null) : null;
  }
  if (p.patternType !== 'Interval') return null;
  const start = typeof p.intervalWindowStart === 'string' ? parseTimeOfDay(p.intervalWindowStart.trim()) : null;
  const end = typeof p.intervalWindowEnd === 'string' ? parseTimeOfDay(p.intervalWindowEnd.trim()) : null;
  const value = p.intervalValue;
  if (start === null || end === null || end <= start || !Number.isInteger(value) || value! < 1) return null;
  const step = p.intervalUnit === 'Hours' ? value! * 60 : p.intervalUnit === 'Minutes' ? value! : 0;
  if (!step) return null;
  const times: number[] = [];
  for (let t = start; t <= end && t < MINUTES_PER_DAY; t += step) times.push(t);
  return times;
}

/**
 * 5-field cron lines that fire exactly at `times` (minutes since midnight) on `days`: hours with the
 * same set of minutes share a line, so 09:00,09:30,17:00,17:30 is one line and 09:00,17:30 two.
 * Minute and hour fields are always explicit lists or ranges (never `*` or a step), which makes every
 * line a wall-clock ("fixed-time") job for croner's DST handling.
 */
export function cronLinesForTimes(times: readonly number[], days: readonly number[]): string[] {
  const minutesByHour = new Map<number, number[]>();
  for (const t of [...new Set(times)].sort((a, b) => a - b)) {
    const hour = Math.floor(t / 60);
    minutesByHour.set(hour, [...(minutesByHour.get(hour) ?? []), t % 60]);
  }
  const hoursByMinutes = new Map<string, { minutes: number[]; hours: number[] }>();
  for (const [hour, minutes] of minutesByHour) {
    const key = minutes.join(',');
    const group = hoursByMinutes.get(key) ?? { minutes, hours: [] };
    group.hours.push(hour);
    hoursByMinutes.set(key, group);
  }
  const dow = days.length === 7 ? '*' : compactList(days);
  // Map iteration follows insertion, i.e. the first hour of each group ascending: lines read in time order.
  return [...hoursByMinutes.values()].map((g) => `${compactList(g.minutes)} ${compactList(g.hours)} * * ${dow}`);
}

/**
 * The cron lines a pattern is evaluated with, or null when the pattern is incomplete or invalid
 * (whatever its trigger type). Custom: the supplied lines; SpecificTimes and Interval: generated.
 */
export function cronLines(p: SchedulePattern): string[] | null {
  const errors = validateSchedulePattern({ ...p, triggerType: 'Cron' });
  if (Object.keys(errors).length) return null;
  if (p.patternType === 'Custom') return splitCronLines(p.cronExpression!);
  const times = timesOfDay(p);
  const days = parseDaysOfWeek(p.daysOfWeek!).value;
  if (!times?.length || !days) return null;
  return cronLinesForTimes(times, days);
}

/**
 * What the API shows as `cronExpression`: the generated 5-field expression of a SpecificTimes or
 * Interval pattern (several lines joined with `; ` when one line cannot say it exactly), the
 * normalised supplied expression for Custom, or null when the pattern is incomplete. It does not
 * depend on the trigger type: a Manual schedule shows what it would fire at as a Cron one.
 */
export function canonicalCronExpression(p: SchedulePattern): string | null {
  if (p.patternType === 'Custom' && typeof p.cronExpression === 'string' && p.cronExpression.trim()) {
    const lines = splitCronLines(p.cronExpression);
    return lines.join(CRON_LINE_SEPARATOR);
  }
  return cronLines(p)?.join(CRON_LINE_SEPARATOR) ?? null;
}
