import { canonicalCronExpression, compactList } from './cron-generation';
import { cronExpressionProblems } from './cron-syntax';
import { canonicalTimeZone, normaliseSchedulePattern, SchedulePattern, validateSchedulePattern } from './schedule-pattern';

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
const SPECIFIC: SchedulePattern = { ...NONE, daysOfWeek: '1,2,3,4,5', runTimes: '09:00,17:30' };
const INTERVAL: SchedulePattern = {
  ...NONE,
  patternType: 'Interval',
  daysOfWeek: '1',
  intervalValue: 30,
  intervalUnit: 'Minutes',
  intervalWindowStart: '08:00',
  intervalWindowEnd: '18:00',
};
const CUSTOM: SchedulePattern = { ...NONE, patternType: 'Custom', cronExpression: '0 9 * * 1-5' };

describe('validateSchedulePattern', () => {
  it.each<[string, SchedulePattern]>([
    ['SpecificTimes', SPECIFIC],
    ['SpecificTimes with spaces after commas', { ...SPECIFIC, daysOfWeek: '1, 3 ,5', runTimes: '09:00, 23:59, 00:00' }],
    ['Interval in hours', { ...INTERVAL, intervalUnit: 'Hours', intervalValue: 59 }],
    ['Custom', CUSTOM],
    ['Custom with several lines', { ...CUSTOM, cronExpression: '0 9 * * 1-5; 30 17 * * 1-5' }],
    ['a named time zone', { ...SPECIFIC, timeZone: 'Europe/London' }],
    ['a time zone in another case', { ...SPECIFIC, timeZone: 'europe/london' }],
    ['Manual without any pattern field', { ...NONE, triggerType: 'Manual' }],
    ['Manual with a Custom pattern type and no expression', { ...NONE, triggerType: 'Manual', patternType: 'Custom' }],
    ['a cronExpression on a generated pattern (shown by the API, ignored on input)', { ...SPECIFIC, cronExpression: 'anything' }],
  ])('accepts %s', (_, pattern) => {
    expect(validateSchedulePattern(pattern)).toEqual({});
  });

  it.each<[string, SchedulePattern, string, RegExp]>([
    ['an unknown trigger type', { ...SPECIFIC, triggerType: 'Sometimes' as never }, 'triggerType', /Cron or Manual/],
    ['an unknown pattern type', { ...SPECIFIC, patternType: 'Weekly' as never }, 'patternType', /SpecificTimes, Interval or Custom/],
    ['SpecificTimes without days', { ...SPECIFIC, daysOfWeek: null }, 'daysOfWeek', /daysOfWeek is required for SpecificTimes/],
    ['SpecificTimes with blank days', { ...SPECIFIC, daysOfWeek: '  ' }, 'daysOfWeek', /required/],
    ['SpecificTimes without run times', { ...SPECIFIC, runTimes: null }, 'runTimes', /runTimes is required for SpecificTimes/],
    ['day 7', { ...SPECIFIC, daysOfWeek: '1,7' }, 'daysOfWeek', /from 0 \(Sunday\) to 6 \(Saturday\).*'7' is not one/],
    ['a day name', { ...SPECIFIC, daysOfWeek: 'MON' }, 'daysOfWeek', /'MON' is not one/],
    ['a negative day', { ...SPECIFIC, daysOfWeek: '-1' }, 'daysOfWeek', /'-1' is not one/],
    ['an empty day in the list', { ...SPECIFIC, daysOfWeek: '1,,2' }, 'daysOfWeek', /'' is not one/],
    ['a repeated day', { ...SPECIFIC, daysOfWeek: '1,2,1' }, 'daysOfWeek', /lists 1 \(Monday\) more than once/],
    ['hour 24', { ...SPECIFIC, runTimes: '24:00' }, 'runTimes', /HH:mm from 00:00 to 23:59.*'24:00' is not one/],
    ['minute 60', { ...SPECIFIC, runTimes: '09:60' }, 'runTimes', /'09:60' is not one/],
    ['a one-digit hour', { ...SPECIFIC, runTimes: '9:00' }, 'runTimes', /'9:00' is not one/],
    ['seconds', { ...SPECIFIC, runTimes: '09:00:00' }, 'runTimes', /'09:00:00' is not one/],
    ['a trailing comma', { ...SPECIFIC, runTimes: '09:00,' }, 'runTimes', /'' is not one/],
    ['a repeated run time', { ...SPECIFIC, runTimes: '09:00,17:30,09:00' }, 'runTimes', /lists 09:00 more than once/],
    ['Interval without days', { ...INTERVAL, daysOfWeek: null }, 'daysOfWeek', /required for Interval/],
    ['Interval without a value', { ...INTERVAL, intervalValue: null }, 'intervalValue', /intervalValue is required for Interval/],
    ['Interval without a unit', { ...INTERVAL, intervalUnit: null }, 'intervalUnit', /intervalUnit is required for Interval/],
    [
      'Interval without a window start',
      { ...INTERVAL, intervalWindowStart: null },
      'intervalWindowStart',
      /intervalWindowStart is required/,
    ],
    ['Interval without a window end', { ...INTERVAL, intervalWindowEnd: null }, 'intervalWindowEnd', /intervalWindowEnd is required/],
    ['interval 0', { ...INTERVAL, intervalValue: 0 }, 'intervalValue', /whole number from 1 to 59/],
    ['interval 60', { ...INTERVAL, intervalValue: 60 }, 'intervalValue', /whole number from 1 to 59/],
    ['a fractional interval', { ...INTERVAL, intervalValue: 1.5 }, 'intervalValue', /whole number from 1 to 59/],
    ['unit Days', { ...INTERVAL, intervalUnit: 'Days' as never }, 'intervalUnit', /Minutes or Hours/],
    ['a window start that is not a time', { ...INTERVAL, intervalWindowStart: '8am' }, 'intervalWindowStart', /HH:mm from 00:00 to 23:59/],
    ['a window end that is not a time', { ...INTERVAL, intervalWindowEnd: '24:00' }, 'intervalWindowEnd', /HH:mm from 00:00 to 23:59/],
    [
      'a window ending before it starts',
      { ...INTERVAL, intervalWindowStart: '18:00', intervalWindowEnd: '08:00' },
      'intervalWindowEnd',
      /must be later than intervalWindowStart/,
    ],
    [
      'an empty window',
      { ...INTERVAL, intervalWindowStart: '08:00', intervalWindowEnd: '08:00' },
      'intervalWindowEnd',
      /must be later than intervalWindowStart/,
    ],
    ['Custom without an expression', { ...CUSTOM, cronExpression: null }, 'cronExpression', /cronExpression is required for Custom/],
    [
      'Custom with an hour out of range',
      { ...CUSTOM, cronExpression: '0 25 * * *' },
      'cronExpression',
      /the hour field '25' is out of range 0-23/,
    ],
    [
      'Custom with seconds',
      { ...CUSTOM, cronExpression: '0 0 9 * * *' },
      'cronExpression',
      /has 6 fields: a cron expression has exactly 5 .*seconds/,
    ],
    [
      'an unknown time zone',
      { ...SPECIFIC, timeZone: 'Mars/Olympus_Mons' },
      'timeZone',
      /'Mars\/Olympus_Mons' is not an IANA time zone name/,
    ],
    ['an offset instead of a zone', { ...SPECIFIC, timeZone: '+01:00' }, 'timeZone', /not an IANA time zone/],
    ['an empty time zone', { ...SPECIFIC, timeZone: '' }, 'timeZone', /not an IANA time zone/],
  ])('rejects %s, naming the field', (_, pattern, field, message) => {
    const errors = validateSchedulePattern(pattern);
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field].join(' ')).toMatch(message);
  });

  it('checks the format of values a Manual schedule carries, but requires none', () => {
    expect(validateSchedulePattern({ ...NONE, triggerType: 'Manual', daysOfWeek: '8', intervalValue: 99 })).toEqual({
      daysOfWeek: [expect.stringMatching(/'8' is not one/)],
      intervalValue: [expect.stringMatching(/1 to 59/)],
    });
  });

  it('reports every problem at once', () => {
    expect(
      Object.keys(
        validateSchedulePattern({
          ...INTERVAL,
          daysOfWeek: 'x',
          intervalValue: 0,
          intervalUnit: 'Weeks' as never,
          intervalWindowStart: 'a',
          timeZone: 'Nowhere',
        }),
      ).sort(),
    ).toEqual(['daysOfWeek', 'intervalUnit', 'intervalValue', 'intervalWindowStart', 'timeZone']);
  });
});

describe('Custom cron expressions', () => {
  it.each<[string, RegExp]>([
    ['', /must not be empty/],
    ['0 9 * *', /has 4 fields: a cron expression has exactly 5 \(minute hour day-of-month month day-of-week\)/],
    ['0 0 9 * * * 2025', /has 7 fields.*seconds or years are not supported/],
    ['@daily', /nicknames such as '@daily' are not supported/],
    ['60 * * * *', /the minute field '60' is out of range 0-59/],
    ['0 9 0 * *', /the day-of-month field '0' is out of range 1-31/],
    ['0 9 32 * *', /the day-of-month field '32' is out of range 1-31/],
    ['0 9 * 13 *', /the month field '13' is out of range 1-12/],
    ['0 9 * * 8', /the day-of-week field '8' is out of range 0-7/],
    ['0 9 * FOO *', /the month field 'FOO' is not a known name \(JAN-DEC\)/],
    ['0 9 * * MONDAY', /the day-of-week field 'MONDAY' is not a known name \(SUN-SAT\)/],
    ['0 nine * * *', /the hour field 'nine' must be a number from 0 to 23/],
    ['0 17-9 * * *', /the hour range '17-9' runs backwards/],
    ['*/0 * * * *', /the minute step '\/0' is out of range 1-60/],
    ['*/x * * * *', /the minute step '\/x' must be a whole number/],
    ['5/15 * * * *', /steps from a single value; write '5-59\/15' or '\*\/15'/],
    ['0 9 L * *', /the day-of-month field 'L' must be a number/],
    ['0 9 * * 5#2', /the day-of-week field '5#2' is not valid/],
    ['0 9 ? * *', /the day-of-month field '\?' is not valid/],
    ['0 9,,10 * * *', /the hour field has an empty list item/],
    ['0 0 31 2 *', /never matches a date/],
    ['0 9 * * 1; 0 25 * * *', /line 2: the hour field '25' is out of range 0-23/],
    ['0 9 * * 1;', /line 2: an expression line is empty/],
  ])('%j → %s', (expression, message) => {
    const problems = cronExpressionProblems(expression);
    expect(problems.join(' ')).toMatch(message);
  });

  it.each(['0 9 * * 1-5', '*/5 * * * *', '0-30/10 8-17 1,15 JAN-MAR mon-fri', '0 0 29 2 *', '0 12 * * 7', '0 9 * * SUN'])(
    'accepts %j',
    (expression) => {
      expect(cronExpressionProblems(expression)).toEqual([]);
    },
  );

  it('accepts at most 24 lines', () => {
    expect(cronExpressionProblems(Array.from({ length: 24 }, (_, h) => `0 ${h} * * *`).join(';'))).toEqual([]);
    expect(cronExpressionProblems(Array.from({ length: 25 }, () => '0 1 * * *').join(';')).join(' ')).toMatch(/25 lines; at most 24/);
  });
});

describe('normaliseSchedulePattern and canonicalCronExpression', () => {
  it('sorts days and times, trims, spells the time zone canonically and tidies a Custom expression', () => {
    expect(
      normaliseSchedulePattern({ ...SPECIFIC, daysOfWeek: '5, 1,3', runTimes: '17:30, 09:00', timeZone: 'europe/london' }),
    ).toMatchObject({ daysOfWeek: '1,3,5', runTimes: '09:00,17:30', timeZone: 'Europe/London' });
    expect(normaliseSchedulePattern({ ...CUSTOM, cronExpression: '  0  9 * *   1-5 ;30 17 * * 1-5 ' }).cronExpression).toBe(
      '0 9 * * 1-5; 30 17 * * 1-5',
    );
    expect(normaliseSchedulePattern({ ...INTERVAL, intervalWindowStart: ' 08:00 ', runTimes: '', daysOfWeek: '' })).toMatchObject({
      intervalWindowStart: '08:00',
      runTimes: null,
      daysOfWeek: null,
    });
  });

  it('shows a generated expression whatever the trigger, and null while the pattern is incomplete', () => {
    expect(canonicalCronExpression({ ...SPECIFIC, triggerType: 'Manual' })).toBe('0 9 * * 1-5; 30 17 * * 1-5');
    expect(canonicalCronExpression({ ...NONE, triggerType: 'Manual' })).toBeNull();
    expect(canonicalCronExpression({ ...SPECIFIC, runTimes: '25:00' })).toBeNull();
    expect(canonicalCronExpression({ ...SPECIFIC, daysOfWeek: '0,1,2,3,4,5,6', runTimes: '06:00' })).toBe('0 6 * * *');
  });

  it.each<[number[], string]>([
    [[1, 2, 3, 4, 5], '1-5'],
    [[0, 6], '0,6'],
    [[1, 2, 4, 5, 6], '1,2,4-6'],
    [[3], '3'],
    [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23], '0-23'],
  ])('compactList(%j) = %s', (values, text) => expect(compactList(values)).toBe(text));

  it.each<[string, string | null]>([
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['Europe/London', 'Europe/London'],
    ['US/Eastern', 'America/New_York'],
    ['Not/AZone', null],
    ['', null],
    ['Europe/London; DROP', null],
  ])('canonicalTimeZone(%j) = %j', (name, canonical) => expect(canonicalTimeZone(name)).toBe(canonical));
});
