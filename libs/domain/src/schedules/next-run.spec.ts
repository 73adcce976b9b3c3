import { canonicalCronExpression } from './cron-generation';
import { dueTimesBetween, nextRunTime } from './next-run';
import { SchedulePattern } from './schedule-pattern';

const NONE: SchedulePattern = {
  triggerType: 'Cron',
  patternType: 'SpecificTimes',
  daysOfWeek: null,
  runTimes: null,
  intervalValue: null,
  intervalUnit: null,
  intervalWindowStart: null,
  intervalWindowEnd: null,
  cronExpression: null,
  timeZone: 'UTC',
};
const times = (daysOfWeek: string, runTimes: string, timeZone = 'UTC'): SchedulePattern => ({ ...NONE, daysOfWeek, runTimes, timeZone });
const interval = (
  daysOfWeek: string,
  intervalValue: number,
  intervalUnit: 'Minutes' | 'Hours',
  start: string,
  end: string,
  timeZone = 'UTC',
): SchedulePattern => ({
  ...NONE,
  patternType: 'Interval',
  daysOfWeek,
  intervalValue,
  intervalUnit,
  intervalWindowStart: start,
  intervalWindowEnd: end,
  timeZone,
});
const custom = (cronExpression: string, timeZone = 'UTC'): SchedulePattern => ({
  ...NONE,
  patternType: 'Custom',
  cronExpression,
  timeZone,
});

/** The next `n` due times after `from`, each strictly after the previous one, as ISO strings. */
function consecutive(p: SchedulePattern, from: string, n: number): string[] {
  const out: string[] = [];
  let cursor = new Date(from);
  for (let i = 0; i < n; i += 1) {
    const next = nextRunTime(p, cursor);
    if (!next) break;
    out.push(next.toISOString());
    cursor = next;
  }
  return out;
}

// 2025-06-13 is a Friday.
describe('pattern → canonical cron → next runs (UTC)', () => {
  it.each<[string, SchedulePattern, string, string, string[]]>([
    [
      'weekdays at 09:00 and 17:30: different minutes, two lines (a single "0,30 9,17" would also fire 09:30 and 17:00)',
      times('1,2,3,4,5', '09:00,17:30'),
      '0 9 * * 1-5; 30 17 * * 1-5',
      '2025-06-13T08:00:00Z',
      [
        '2025-06-13T09:00:00.000Z',
        '2025-06-13T17:30:00.000Z',
        '2025-06-16T09:00:00.000Z',
        '2025-06-16T17:30:00.000Z',
        '2025-06-17T09:00:00.000Z',
      ],
    ],
    [
      'a full cross product of minutes and hours is one line',
      times('0,1,2,3,4,5,6', '17:30,09:00,17:00,09:30'),
      '0,30 9,17 * * *',
      '2025-06-13T09:10:00Z',
      ['2025-06-13T09:30:00.000Z', '2025-06-13T17:00:00.000Z', '2025-06-13T17:30:00.000Z', '2025-06-14T09:00:00.000Z'],
    ],
    [
      'weekend midnight',
      times('6,0', '00:00'),
      '0 0 * * 0,6',
      '2025-06-13T12:00:00Z',
      ['2025-06-14T00:00:00.000Z', '2025-06-15T00:00:00.000Z', '2025-06-21T00:00:00.000Z'],
    ],
    [
      'quarter hours of one hour plus a stray time',
      times('1,3,5', '08:00,08:15,08:30,08:45,12:05'),
      '0,15,30,45 8 * * 1,3,5; 5 12 * * 1,3,5',
      '2025-06-13T08:20:00Z',
      ['2025-06-13T08:30:00.000Z', '2025-06-13T08:45:00.000Z', '2025-06-13T12:05:00.000Z', '2025-06-16T08:00:00.000Z'],
    ],
    [
      'every 30 minutes from 08:15 to 10:00: aligned to the window start, not the hour',
      interval('1,2,3,4,5', 30, 'Minutes', '08:15', '10:00'),
      '15,45 8,9 * * 1-5',
      '2025-06-13T08:00:00Z',
      [
        '2025-06-13T08:15:00.000Z',
        '2025-06-13T08:45:00.000Z',
        '2025-06-13T09:15:00.000Z',
        '2025-06-13T09:45:00.000Z',
        '2025-06-16T08:15:00.000Z',
      ],
    ],
    [
      'every 30 minutes from 08:00 to 10:00: the window end is inclusive',
      interval('1,2,3,4,5', 30, 'Minutes', '08:00', '10:00'),
      '0,30 8,9 * * 1-5; 0 10 * * 1-5',
      '2025-06-13T09:15:00Z',
      ['2025-06-13T09:30:00.000Z', '2025-06-13T10:00:00.000Z', '2025-06-16T08:00:00.000Z'],
    ],
    [
      'every 2 hours from 08:15 to 17:00',
      interval('2', 2, 'Hours', '08:15', '17:00'),
      '15 8,10,12,14,16 * * 2',
      '2025-06-17T11:00:00Z',
      ['2025-06-17T12:15:00.000Z', '2025-06-17T14:15:00.000Z', '2025-06-17T16:15:00.000Z', '2025-06-24T08:15:00.000Z'],
    ],
    [
      'every 7 minutes from 00:00 to 01:00',
      interval('0,1,2,3,4,5,6', 7, 'Minutes', '00:00', '01:00'),
      '0,7,14,21,28,35,42,49,56 0 * * *',
      '2025-06-13T00:50:00Z',
      ['2025-06-13T00:56:00.000Z', '2025-06-14T00:00:00.000Z', '2025-06-14T00:07:00.000Z'],
    ],
    [
      'every 20 minutes all day',
      interval('0,1,2,3,4,5,6', 20, 'Minutes', '00:00', '23:59'),
      '0,20,40 0-23 * * *',
      '2025-06-13T23:30:00Z',
      ['2025-06-13T23:40:00.000Z', '2025-06-14T00:00:00.000Z', '2025-06-14T00:20:00.000Z'],
    ],
    [
      'the last minutes of the day',
      interval('5', 1, 'Minutes', '23:57', '23:59'),
      '57-59 23 * * 5',
      '2025-06-13T23:57:00Z',
      ['2025-06-13T23:58:00.000Z', '2025-06-13T23:59:00.000Z', '2025-06-20T23:57:00.000Z'],
    ],
    [
      'an interval longer than the window runs once, at the window start',
      interval('1', 59, 'Hours', '06:00', '23:00'),
      '0 6 * * 1',
      '2025-06-13T00:00:00Z',
      ['2025-06-16T06:00:00.000Z', '2025-06-23T06:00:00.000Z'],
    ],
    [
      'Custom: steps, ranges and names',
      custom('*/15  9-10 * * MON'),
      '*/15 9-10 * * MON',
      '2025-06-13T00:00:00Z',
      [
        '2025-06-16T09:00:00.000Z',
        '2025-06-16T09:15:00.000Z',
        '2025-06-16T09:30:00.000Z',
        '2025-06-16T09:45:00.000Z',
        '2025-06-16T10:00:00.000Z',
      ],
    ],
    [
      'Custom: several lines',
      custom('0 9 * * 1-5;30 17 * * 1-5'),
      '0 9 * * 1-5; 30 17 * * 1-5',
      '2025-06-13T10:00:00Z',
      ['2025-06-13T17:30:00.000Z', '2025-06-16T09:00:00.000Z'],
    ],
    [
      'Custom: day of month OR day of week (standard cron)',
      custom('0 12 1 * 0'),
      '0 12 1 * 0',
      '2025-06-13T00:00:00Z',
      ['2025-06-15T12:00:00.000Z', '2025-06-22T12:00:00.000Z', '2025-06-29T12:00:00.000Z', '2025-07-01T12:00:00.000Z'],
    ],
  ])('%s', (_, pattern, cron, from, runs) => {
    expect(canonicalCronExpression(pattern)).toBe(cron);
    expect(consecutive(pattern, from, runs.length)).toEqual(runs);
    // The canonical expression, used as a Custom expression, fires at the same times.
    expect(consecutive(custom(cron), from, runs.length)).toEqual(runs);
  });

  it('is strictly after the given instant, whatever its milliseconds', () => {
    const p = times('5', '09:00');
    expect(nextRunTime(p, new Date('2025-06-13T09:00:00.000Z'))?.toISOString()).toBe('2025-06-20T09:00:00.000Z');
    expect(nextRunTime(p, new Date('2025-06-13T09:00:00.500Z'))?.toISOString()).toBe('2025-06-20T09:00:00.000Z');
    expect(nextRunTime(p, new Date('2025-06-13T08:59:59.999Z'))?.toISOString()).toBe('2025-06-13T09:00:00.000Z');
  });

  it('is null for Manual schedules, whatever their pattern', () => {
    expect(nextRunTime({ ...times('1', '09:00'), triggerType: 'Manual' }, new Date())).toBeNull();
    expect(nextRunTime({ ...NONE, triggerType: 'Manual' }, new Date())).toBeNull();
    expect(dueTimesBetween({ ...times('1', '09:00'), triggerType: 'Manual' }, new Date(0), new Date(), 10)).toEqual([]);
  });

  it('throws a VALIDATION_ERROR for an invalid Cron pattern', () => {
    expect(() => nextRunTime(times('1', '25:00'), new Date())).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', validationErrors: { runTimes: [expect.any(String)] } }),
    );
    expect(() => nextRunTime({ ...NONE }, new Date())).toThrow(
      expect.objectContaining({ validationErrors: { daysOfWeek: [expect.any(String)], runTimes: [expect.any(String)] } }),
    );
  });
});

describe('dueTimesBetween', () => {
  const p = times('1,2,3,4,5', '09:00,17:30');

  it('lists the due times in (from, to], ascending, up to the limit', () => {
    const due = (from: string, to: string, limit: number) =>
      dueTimesBetween(p, new Date(from), new Date(to), limit).map((d) => d.toISOString());
    expect(due('2025-06-13T09:00:00Z', '2025-06-16T17:30:00Z', 10)).toEqual([
      '2025-06-13T17:30:00.000Z',
      '2025-06-16T09:00:00.000Z',
      '2025-06-16T17:30:00.000Z',
    ]);
    expect(due('2025-06-13T09:00:00Z', '2025-06-16T17:30:00Z', 2)).toEqual(['2025-06-13T17:30:00.000Z', '2025-06-16T09:00:00.000Z']);
    expect(due('2025-06-13T09:00:00Z', '2025-06-13T17:29:59Z', 10)).toEqual([]);
    expect(due('2025-06-13T09:00:00Z', '2025-06-16T17:30:00Z', 0)).toEqual([]);
  });

  it('counts an instant two lines share once', () => {
    const overlapping = custom('0 9 * * *; 0 9 * * 1; 30 9 * * 1');
    expect(
      dueTimesBetween(overlapping, new Date('2025-06-15T12:00:00Z'), new Date('2025-06-16T12:00:00Z'), 10).map((d) => d.toISOString()),
    ).toEqual(['2025-06-16T09:00:00.000Z', '2025-06-16T09:30:00.000Z']);
  });
});

// Europe/London: 2025-03-30 01:00 GMT → 02:00 BST (01:00-01:59 does not exist); 2025-10-26 02:00 BST → 01:00 GMT (01:00-01:59 happens twice).
describe('named time zones and daylight saving', () => {
  it.each<[string, SchedulePattern, string, string[]]>([
    [
      '09:00 in Europe/London stays 09:00 local across the spring change',
      times('0,1,2,3,4,5,6', '09:00', 'Europe/London'),
      '2025-03-28T12:00:00Z',
      ['2025-03-29T09:00:00.000Z', '2025-03-30T08:00:00.000Z', '2025-03-31T08:00:00.000Z'],
    ],
    [
      '09:00 in Europe/London stays 09:00 local across the autumn change',
      times('0,1,2,3,4,5,6', '09:00', 'Europe/London'),
      '2025-10-24T12:00:00Z',
      ['2025-10-25T08:00:00.000Z', '2025-10-26T09:00:00.000Z', '2025-10-27T09:00:00.000Z'],
    ],
    [
      'weekdays 09:00 and 17:30 in Europe/London across the spring change',
      times('1,2,3,4,5', '09:00,17:30', 'Europe/London'),
      '2025-03-28T12:00:00Z',
      ['2025-03-28T17:30:00.000Z', '2025-03-31T08:00:00.000Z', '2025-03-31T16:30:00.000Z', '2025-04-01T08:00:00.000Z'],
    ],
    [
      '01:30 falls in the spring gap: it fires once, at the first valid instant after the gap (02:00 BST)',
      times('0,1,2,3,4,5,6', '01:30', 'Europe/London'),
      '2025-03-29T12:00:00Z',
      ['2025-03-30T01:00:00.000Z', '2025-03-31T00:30:00.000Z'],
    ],
    [
      '01:30 happens twice in autumn: it fires once, on its first occurrence (01:30 BST)',
      times('0,1,2,3,4,5,6', '01:30', 'Europe/London'),
      '2025-10-25T12:00:00Z',
      ['2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z'],
    ],
    [
      'every 30 minutes 00:00-03:00 on the spring day: the gap times collapse into one run at 02:00 BST',
      interval('0', 30, 'Minutes', '00:00', '03:00', 'Europe/London'),
      '2025-03-29T23:59:00Z',
      [
        '2025-03-30T00:00:00.000Z',
        '2025-03-30T00:30:00.000Z',
        '2025-03-30T01:00:00.000Z',
        '2025-03-30T01:30:00.000Z',
        '2025-03-30T02:00:00.000Z',
        '2025-04-05T23:00:00.000Z',
      ],
    ],
    [
      'every 30 minutes 00:00-03:00 on the autumn day: each local time fires once',
      interval('0', 30, 'Minutes', '00:00', '03:00', 'Europe/London'),
      '2025-10-25T22:59:00Z',
      [
        '2025-10-25T23:00:00.000Z',
        '2025-10-25T23:30:00.000Z',
        '2025-10-26T00:00:00.000Z',
        '2025-10-26T00:30:00.000Z',
        '2025-10-26T02:00:00.000Z',
        '2025-10-26T02:30:00.000Z',
        '2025-10-26T03:00:00.000Z',
        '2025-11-02T00:00:00.000Z',
      ],
    ],
    [
      'a Custom step expression is an interval: the repeated hour fires on both occurrences',
      custom('*/30 1 26 10 *', 'Europe/London'),
      '2025-10-25T12:00:00Z',
      ['2025-10-26T00:00:00.000Z', '2025-10-26T00:30:00.000Z', '2025-10-26T01:00:00.000Z', '2025-10-26T01:30:00.000Z'],
    ],
    [
      '09:00 in America/New_York across its spring change (9 March 2025)',
      times('0,1,2,3,4,5,6', '09:00', 'America/New_York'),
      '2025-03-07T15:00:00Z',
      ['2025-03-08T14:00:00.000Z', '2025-03-09T13:00:00.000Z', '2025-03-10T13:00:00.000Z'],
    ],
    [
      'days of week are local days: Monday 00:30 in Australia/Sydney is Sunday in UTC',
      times('1', '00:30', 'Australia/Sydney'),
      '2025-06-13T00:00:00Z',
      ['2025-06-15T14:30:00.000Z', '2025-06-22T14:30:00.000Z'],
    ],
  ])('%s', (_, pattern, from, runs) => {
    expect(consecutive(pattern, from, runs.length)).toEqual(runs);
  });
});
