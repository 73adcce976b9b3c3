import { Cron } from 'croner';
import { DomainError } from '../errors/domain-error';
import { cronLines } from './cron-generation';
import { CRON_OPTIONS } from './cron-syntax';
import { canonicalTimeZone, SchedulePattern, validateSchedulePattern } from './schedule-pattern';

/** croner jobs of a Cron-triggered pattern; throws VALIDATION_ERROR when the pattern is invalid. */
function compile(p: SchedulePattern): Cron[] {
  const lines = cronLines(p);
  if (!lines) {
    const errors = validateSchedulePattern({ ...p, triggerType: 'Cron' });
    throw DomainError.validationMany(
      Object.keys(errors).length ? errors : { patternType: ['The schedule pattern fires at no time.'] },
      'The schedule pattern is invalid.',
    );
  }
  const timezone = canonicalTimeZone(p.timeZone)!;
  return lines.map((line) => new Cron(line, { ...CRON_OPTIONS, timezone, paused: true }));
}

function earliest(jobs: Cron[], after: Date): Date | null {
  let best: Date | null = null;
  for (const job of jobs) {
    const next = job.nextRun(after);
    if (next && (!best || next.getTime() < best.getTime())) best = next;
  }
  return best;
}

/**
 * The first due time strictly after `after` (whole minutes, UTC instant), or null for a Manual
 * schedule (or a Custom expression that never fires again). Times are read in the pattern's time
 * zone; a pattern with several cron lines fires at the earliest of them. Throws a VALIDATION_ERROR
 * DomainError when a Cron pattern is invalid.
 */
export function nextRunTime(p: SchedulePattern, after: Date): Date | null {
  if (p.triggerType !== 'Cron') return null;
  return earliest(compile(p), after);
}

/**
 * Due times in (fromExclusive, toInclusive], ascending, at most `limit` of them; empty for Manual.
 * Two lines due at the same instant count once.
 */
export function dueTimesBetween(p: SchedulePattern, fromExclusive: Date, toInclusive: Date, limit: number): Date[] {
  if (p.triggerType !== 'Cron' || limit <= 0) return [];
  const jobs = compile(p);
  const out: Date[] = [];
  let cursor = fromExclusive;
  while (out.length < limit) {
    const next = earliest(jobs, cursor);
    if (!next || next.getTime() > toInclusive.getTime()) break;
    out.push(next);
    cursor = next;
  }
  return out;
}
