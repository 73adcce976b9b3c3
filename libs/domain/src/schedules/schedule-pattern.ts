import { ValidationErrorCollector, type ValidationErrors } from '../errors/domain-error';
import { cronExpressionProblems, normaliseCronExpression } from './cron-syntax';

export const SCHEDULE_TRIGGER_TYPES = ['Cron', 'Manual'] as const;
export type ScheduleTriggerType = (typeof SCHEDULE_TRIGGER_TYPES)[number];
/** The trigger types by name (`ScheduleTriggerType.Cron`). */
export const ScheduleTriggerType = { Cron: 'Cron', Manual: 'Manual' } as const satisfies { [K in ScheduleTriggerType]: K };

export const SCHEDULE_PATTERN_TYPES = ['SpecificTimes', 'Interval', 'Custom'] as const;
export type SchedulePatternType = (typeof SCHEDULE_PATTERN_TYPES)[number];
/** The pattern types by name (`SchedulePatternType.Custom`). */
export const SchedulePatternType = {
  SpecificTimes: 'SpecificTimes',
  Interval: 'Interval',
  Custom: 'Custom',
} as const satisfies { [K in SchedulePatternType]: K };

export const SCHEDULE_INTERVAL_UNITS = ['Minutes', 'Hours'] as const;
export type ScheduleIntervalUnit = (typeof SCHEDULE_INTERVAL_UNITS)[number];

export const DEFAULT_SCHEDULE_TIME_ZONE = 'UTC';
export const MAX_TIME_ZONE_LENGTH = 64;
export const MIN_INTERVAL_VALUE = 1;
export const MAX_INTERVAL_VALUE = 59;

/** The fields of a schedule that decide when it fires (spec 2.6, plus the IANA `timeZone`). */
export interface SchedulePattern {
  triggerType: 'Cron' | 'Manual';
  patternType: 'SpecificTimes' | 'Interval' | 'Custom';
  daysOfWeek: string | null;
  runTimes: string | null;
  intervalValue: number | null;
  intervalUnit: 'Minutes' | 'Hours' | null;
  intervalWindowStart: string | null;
  intervalWindowEnd: string | null;
  cronExpression: string | null;
  timeZone: string;
}

/** Required fields per pattern type for cron-triggered schedules (spec 2.6). */
export const REQUIRED_PATTERN_FIELDS: Readonly<Record<SchedulePatternType, readonly (keyof SchedulePattern)[]>> = {
  SpecificTimes: ['daysOfWeek', 'runTimes'],
  Interval: ['daysOfWeek', 'intervalValue', 'intervalUnit', 'intervalWindowStart', 'intervalWindowEnd'],
  Custom: ['cronExpression'],
};

const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Minutes since midnight of a 24-hour `HH:mm` time, or null when it is not one. */
export function parseTimeOfDay(text: string): number | null {
  const m = TIME_OF_DAY.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** `HH:mm` of minutes since midnight. */
export function formatTimeOfDay(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

type Parsed<T> = { value: T; problem?: undefined } | { value?: undefined; problem: string };

/** Parses `daysOfWeek` (comma-separated 0-6, no duplicates) into sorted day numbers. */
export function parseDaysOfWeek(text: string): Parsed<number[]> {
  const items = text.split(',').map((s) => s.trim());
  const days = new Set<number>();
  for (const item of items) {
    if (!/^[0-6]$/.test(item)) {
      return {
        problem: `daysOfWeek must be comma-separated day numbers from 0 (Sunday) to 6 (Saturday), e.g. 1,2,3,4,5; '${item}' is not one.`,
      };
    }
    const day = Number(item);
    if (days.has(day)) return { problem: `daysOfWeek lists ${day} (${DAY_NAMES[day]}) more than once.` };
    days.add(day);
  }
  return { value: [...days].sort((a, b) => a - b) };
}

/** Parses `runTimes` (comma-separated `HH:mm`, no duplicates) into sorted minutes since midnight. */
export function parseRunTimes(text: string): Parsed<number[]> {
  const items = text.split(',').map((s) => s.trim());
  const times = new Set<number>();
  for (const item of items) {
    const t = parseTimeOfDay(item);
    if (t === null) {
      return {
        problem: `runTimes must be comma-separated 24-hour times HH:mm from 00:00 to 23:59, e.g. 09:00,17:30; '${item}' is not one.`,
      };
    }
    if (times.has(t)) return { problem: `runTimes lists ${item} more than once.` };
    times.add(t);
  }
  return { value: [...times].sort((a, b) => a - b) };
}

/** The canonical IANA name of a time zone (`europe/london` → `Europe/London`), or null when unknown. */
export function canonicalTimeZone(name: string): string | null {
  if (typeof name !== 'string' || !name.trim() || name.length > MAX_TIME_ZONE_LENGTH || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name.trim()))
    return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name.trim() }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
}

/**
 * Checks a schedule pattern. Values that are present must be well-formed whatever the trigger; the
 * fields of spec 2.6's table are required only for `Cron` triggers (a `Manual` schedule ignores its
 * pattern). Returns field → messages, empty when valid.
 */
export function validateSchedulePattern(p: SchedulePattern): ValidationErrors {
  const errors = new ValidationErrorCollector();
  const add = (field: keyof SchedulePattern, message: string) => errors.add(field, message);

  if (!SCHEDULE_TRIGGER_TYPES.includes(p.triggerType)) add('triggerType', 'triggerType must be Cron or Manual.');
  if (!SCHEDULE_PATTERN_TYPES.includes(p.patternType)) add('patternType', 'patternType must be SpecificTimes, Interval or Custom.');
  if (isBlank(p.timeZone) || !canonicalTimeZone(p.timeZone)) {
    add(
      'timeZone',
      `timeZone '${String(p.timeZone ?? '').slice(0, 80)}' is not an IANA time zone name (e.g. UTC, Europe/London, America/New_York).`,
    );
  }

  if (!isBlank(p.daysOfWeek)) {
    const days =
      typeof p.daysOfWeek === 'string' ? parseDaysOfWeek(p.daysOfWeek) : { problem: 'daysOfWeek must be text such as 1,2,3,4,5.' };
    if (days.problem) add('daysOfWeek', days.problem);
  }
  if (!isBlank(p.runTimes)) {
    const times = typeof p.runTimes === 'string' ? parseRunTimes(p.runTimes) : { problem: 'runTimes must be text such as 09:00,17:30.' };
    if (times.problem) add('runTimes', times.problem);
  }
  if (
    p.intervalValue !== null &&
    p.intervalValue !== undefined &&
    (!Number.isInteger(p.intervalValue) || p.intervalValue < MIN_INTERVAL_VALUE || p.intervalValue > MAX_INTERVAL_VALUE)
  ) {
    add('intervalValue', `intervalValue must be a whole number from ${MIN_INTERVAL_VALUE} to ${MAX_INTERVAL_VALUE}.`);
  }
  if (p.intervalUnit !== null && p.intervalUnit !== undefined && !SCHEDULE_INTERVAL_UNITS.includes(p.intervalUnit)) {
    add('intervalUnit', 'intervalUnit must be Minutes or Hours.');
  }
  const windowTimes: Partial<Record<'intervalWindowStart' | 'intervalWindowEnd', number>> = {};
  for (const field of ['intervalWindowStart', 'intervalWindowEnd'] as const) {
    const v = p[field];
    if (isBlank(v)) continue;
    const t = typeof v === 'string' ? parseTimeOfDay(v.trim()) : null;
    if (t === null) add(field, `${field} must be a 24-hour time HH:mm from 00:00 to 23:59, e.g. 08:00.`);
    else windowTimes[field] = t;
  }
  if (
    windowTimes.intervalWindowStart !== undefined &&
    windowTimes.intervalWindowEnd !== undefined &&
    windowTimes.intervalWindowEnd <= windowTimes.intervalWindowStart
  ) {
    add(
      'intervalWindowEnd',
      `intervalWindowEnd (${p.intervalWindowEnd}) must be later than intervalWindowStart (${p.intervalWindowStart}); the window lies within one day.`,
    );
  }
  if (!isBlank(p.cronExpression)) {
    if (typeof p.cronExpression !== 'string') add('cronExpression', 'cronExpression must be text.');
    else if (p.patternType === 'Custom') {
      for (const problem of cronExpressionProblems(p.cronExpression)) add('cronExpression', `cronExpression is invalid: ${problem}.`);
    }
  }

  if (p.triggerType === 'Cron' && SCHEDULE_PATTERN_TYPES.includes(p.patternType)) {
    for (const field of REQUIRED_PATTERN_FIELDS[p.patternType]) {
      if (isBlank(p[field]) && !errors.has(field)) add(field, `${field} is required for ${p.patternType} schedules with a Cron trigger.`);
    }
  }
  return errors.byField;
}

/**
 * The stored form of a valid pattern: days and run times sorted without spaces, times trimmed, the
 * time zone in its canonical IANA spelling, a Custom expression with single spaces and `; ` between
 * lines, and a generated pattern's cronExpression left to canonicalCronExpression.
 */
export function normaliseSchedulePattern(p: SchedulePattern): SchedulePattern {
  const days = typeof p.daysOfWeek === 'string' && p.daysOfWeek.trim() ? parseDaysOfWeek(p.daysOfWeek).value : undefined;
  const times = typeof p.runTimes === 'string' && p.runTimes.trim() ? parseRunTimes(p.runTimes).value : undefined;
  const trimmed = (v: string | null) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  return {
    ...p,
    daysOfWeek: days ? days.join(',') : trimmed(p.daysOfWeek),
    runTimes: times ? times.map(formatTimeOfDay).join(',') : trimmed(p.runTimes),
    intervalWindowStart: trimmed(p.intervalWindowStart),
    intervalWindowEnd: trimmed(p.intervalWindowEnd),
    cronExpression: typeof p.cronExpression === 'string' && p.cronExpression.trim() ? normaliseCronExpression(p.cronExpression) : null,
    timeZone: canonicalTimeZone(p.timeZone) ?? p.timeZone,
  };
}
