import { Cron } from 'croner';

/** Options every schedule cron line is evaluated with (see docs/schedules.md, "Time zones and daylight saving"). */
export const CRON_OPTIONS = { mode: '5-part', fixedTimeRule: 'no-wildcard' } as const;

/** Separator of the lines of a multi-line expression (`0 9 * * 1-5; 30 17 * * 1-5`). */
export const CRON_LINE_SEPARATOR = '; ';

/** A Custom expression may have at most this many lines (a generated one never needs more than 24). */
export const MAX_CRON_LINES = 24;

export const MAX_CRON_EXPRESSION_LENGTH = 2000;

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** The value of the first name (JAN = 1, SUN = 0). */
  nameBase?: number;
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
    nameBase: 1,
  },
  { name: 'day-of-week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'], nameBase: 0 },
];

const FIELD_LIST = 'minute hour day-of-month month day-of-week';
const SYNTAX = 'numbers, names (JAN-DEC, SUN-SAT), *, ranges a-b, steps */n or a-b/n and comma-separated lists';
// A fixed instant to ask "does this expression ever fire?" without depending on the clock.
const PROBE_FROM = new Date('2000-01-01T00:00:00.000Z');

/** Splits a (possibly multi-line) expression into trimmed lines with single spaces; empty lines are kept as ''. */
export function splitCronLines(expression: string): string[] {
  return expression.split(';').map((line) => line.trim().split(/\s+/).filter(Boolean).join(' '));
}

/** The normalised form of an expression: lines trimmed, single spaces, joined with `; `. */
export function normaliseCronExpression(expression: string): string {
  return splitCronLines(expression).join(CRON_LINE_SEPARATOR);
}

function parseValue(text: string, spec: FieldSpec): number | string {
  if (/^\d{1,4}$/.test(text)) {
    const value = Number(text);
    if (value < spec.min || value > spec.max) return `the ${spec.name} field '${text}' is out of range ${spec.min}-${spec.max}`;
    return value;
  }
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return index + (spec.nameBase ?? 0);
  if (/^[A-Za-z]+$/.test(text)) {
    return spec.names
      ? `the ${spec.name} field '${text}' is not a known name (${spec.names[0]}-${spec.names[spec.names.length - 1]})`
      : `the ${spec.name} field '${text}' must be a number from ${spec.min} to ${spec.max}`;
  }
  return `the ${spec.name} field '${text}' is not valid: use ${SYNTAX}`;
}

function parseStep(text: string, spec: FieldSpec): number | string {
  if (!/^\d{1,4}$/.test(text)) return `the ${spec.name} step '/${text}' must be a whole number`;
  const step = Number(text);
  const span = spec.max - spec.min + 1;
  if (step < 1 || step > span) return `the ${spec.name} step '/${text}' is out of range 1-${span}`;
  return step;
}

/** Problems of one comma-separated item of a field, or null. */
function itemProblem(item: string, spec: FieldSpec): string | null {
  if (item === '') return `the ${spec.name} field has an empty list item`;
  const [range, step, extra] = item.split('/');
  if (extra !== undefined) return `the ${spec.name} field '${item}' has more than one '/'`;
  if (step !== undefined) {
    const s = parseStep(step, spec);
    if (typeof s === 'string') return s;
    if (range !== '*' && !range.includes('-')) {
      return `the ${spec.name} field '${item}' steps from a single value; write '${range}-${spec.max}/${step}' or '*/${step}'`;
    }
  }
  if (range === '*') return null;
  const bounds = range.split('-');
  if (bounds.length > 2) return `the ${spec.name} field '${item}' is not valid: use ${SYNTAX}`;
  const values: number[] = [];
  for (const bound of bounds) {
    const v = parseValue(bound, spec);
    if (typeof v === 'string') return v;
    values.push(v);
  }
  if (values.length === 2 && values[0] > values[1]) return `the ${spec.name} range '${range}' runs backwards (${values[0]} > ${values[1]})`;
  return null;
}

/** Friendly problems of one 5-field cron line; empty when it is valid. */
export function cronLineProblems(line: string): string[] {
  if (line === '') return ['an expression line is empty'];
  if (line.startsWith('@'))
    return [`nicknames such as '${line.split(' ')[0]}' are not supported: write the 5 fields (${FIELD_LIST}), e.g. 0 0 * * *`];
  const parts = line.split(' ');
  if (parts.length !== 5) {
    const seconds = parts.length === 6 || parts.length === 7 ? '; fields for seconds or years are not supported' : '';
    return [
      `'${line}' has ${parts.length} field${parts.length === 1 ? '' : 's'}: a cron expression has exactly 5 (${FIELD_LIST})${seconds}`,
    ];
  }
  const problems: string[] = [];
  parts.forEach((part, i) => {
    for (const item of part.split(',')) {
      const problem = itemProblem(item, FIELDS[i]);
      if (problem) {
        problems.push(problem);
        break;
      }
    }
  });
  if (problems.length) return problems;
  // Our syntax is a subset of croner's; croner has the last word (and tells whether the line ever fires).
  try {
    if (!new Cron(line, { ...CRON_OPTIONS, paused: true }).nextRun(PROBE_FROM))
      return [`'${line}' never matches a date (e.g. 31 February)`];
  } catch (e) {
    return [`'${line}' is not a valid cron expression: ${(e as Error).message}`];
  }
  return [];
}

/**
 * Friendly problems of a Custom cron expression: 5 fields (minute hour day-of-month month
 * day-of-week) per line, several lines separated by `;`. Empty when it is valid.
 */
export function cronExpressionProblems(expression: string): string[] {
  if (expression.trim() === '') return ['cronExpression must not be empty'];
  if (expression.length > MAX_CRON_EXPRESSION_LENGTH) return [`cronExpression must be at most ${MAX_CRON_EXPRESSION_LENGTH} characters`];
  const lines = splitCronLines(expression);
  if (lines.length > MAX_CRON_LINES) return [`cronExpression has ${lines.length} lines; at most ${MAX_CRON_LINES} are allowed`];
  const problems: string[] = [];
  lines.forEach((line, i) => {
    for (const p of cronLineProblems(line)) problems.push(lines.length > 1 ? `line ${i + 1}: ${p}` : p);
  });
  return problems;
}
