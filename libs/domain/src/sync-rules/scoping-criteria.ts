import { parseDateTime } from '../common/date-time';
import { ValidationErrorCollector, ValidationErrors } from '../errors/domain-error';
import { AttributeDataType } from '../metaverse/metaverse-schema';

// Scoping criteria of sync rules (DOMAIN.md §2.2.2, docs/sync-rules.md): which objects a rule applies to.
// The top level is an array of groups that OR together; a group is `All` (AND) or `Any` (OR) over its
// criteria and nested groups. No criteria at all means every object is in scope.

export enum ScopingGroupType {
  All = 'All',
  Any = 'Any',
}

export enum ScopingOperator {
  Equals = 'Equals',
  NotEquals = 'NotEquals',
  StartsWith = 'StartsWith',
  NotStartsWith = 'NotStartsWith',
  EndsWith = 'EndsWith',
  NotEndsWith = 'NotEndsWith',
  Contains = 'Contains',
  NotContains = 'NotContains',
  LessThan = 'LessThan',
  LessThanOrEqual = 'LessThanOrEqual',
  GreaterThan = 'GreaterThan',
  GreaterThanOrEqual = 'GreaterThanOrEqual',
  IsPresent = 'IsPresent',
  IsNotPresent = 'IsNotPresent',
}

export enum RelativeDateUnit {
  Minutes = 'Minutes',
  Hours = 'Hours',
  Days = 'Days',
  Weeks = 'Weeks',
  Months = 'Months',
  Years = 'Years',
}

export enum RelativeDateDirection {
  Ago = 'Ago',
  FromNow = 'FromNow',
}

/** A date relative to the moment of evaluation, e.g. 30 days ago. */
export interface RelativeDate {
  amount: number;
  unit: RelativeDateUnit;
  direction: RelativeDateDirection;
}

/** A comparison value: text, number, boolean, an ISO 8601 instant (DateTime), a relative date, or null (presence operators). */
export type ScopingValue = string | number | boolean | { relative: RelativeDate } | null;

export interface ScopingCriterion {
  /** A connected-system attribute of the rule's object type (Import) or a metaverse attribute of its type (Export). */
  attributeId: number;
  operator: ScopingOperator;
  value: ScopingValue;
  /** Text comparisons only; false (the default) compares ignoring case. */
  caseSensitive: boolean;
}

export interface ScopingGroup {
  type: ScopingGroupType;
  criteria: ScopingCriterion[];
  groups: ScopingGroup[];
}

/** Bounds on one rule's criteria, so a rule stays readable and cheap to evaluate per object. */
export const SCOPING_LIMITS = Object.freeze({
  /** Nesting levels; a top-level group is level 1. */
  maxDepth: 5,
  /** Groups in total, at every level. */
  maxGroups: 50,
  /** Criteria in total, at every level. */
  maxCriteria: 200,
  /** Characters of a text value. */
  maxValueLength: 1000,
  /** The amount of a relative date. */
  maxRelativeAmount: 100_000,
});

/** What validation needs to know about an attribute a criterion names. */
export interface ScopingAttribute {
  readonly id: number;
  readonly name: string;
  /** AttributeDataType name; unknown names are treated as String. */
  readonly type: string;
}

/** How values of an attribute type are compared. */
export type ScopingValueKind = 'text' | 'number' | 'integer' | 'date' | 'boolean' | 'guid' | 'presence';

const PRESENCE = [ScopingOperator.IsPresent, ScopingOperator.IsNotPresent];
const EQUALITY = [ScopingOperator.Equals, ScopingOperator.NotEquals, ...PRESENCE];
const TEXT = [
  ...EQUALITY,
  ScopingOperator.StartsWith,
  ScopingOperator.NotStartsWith,
  ScopingOperator.EndsWith,
  ScopingOperator.NotEndsWith,
  ScopingOperator.Contains,
  ScopingOperator.NotContains,
];
const ORDERED = [
  ...EQUALITY,
  ScopingOperator.LessThan,
  ScopingOperator.LessThanOrEqual,
  ScopingOperator.GreaterThan,
  ScopingOperator.GreaterThanOrEqual,
];

/** The value kind of an attribute type and the operators it supports. */
export function scopingKindOf(type: string): { kind: ScopingValueKind; operators: readonly ScopingOperator[] } {
  switch (type) {
    case AttributeDataType.Integer:
    case AttributeDataType.LongNumber:
      return { kind: 'integer', operators: ORDERED };
    case AttributeDataType.Decimal:
      return { kind: 'number', operators: ORDERED };
    case AttributeDataType.DateTime:
      return { kind: 'date', operators: ORDERED };
    case AttributeDataType.Boolean:
      return { kind: 'boolean', operators: EQUALITY };
    case AttributeDataType.Guid:
      return { kind: 'guid', operators: EQUALITY };
    case AttributeDataType.Reference:
    case AttributeDataType.Binary:
      return { kind: 'presence', operators: PRESENCE };
    default:
      return { kind: 'text', operators: TEXT };
  }
}

const OPERATORS = new Set<string>(Object.values(ScopingOperator));
const UNITS = new Map<string, RelativeDateUnit>(Object.values(RelativeDateUnit).map((u) => [u.toLowerCase(), u]));
const DIRECTIONS = new Map<string, RelativeDateDirection>(Object.values(RelativeDateDirection).map((d) => [d.toLowerCase(), d]));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RELATIVE_TEXT = /^(\d{1,9})\s*(minute|hour|day|week|month|year)s?\s+(ago|from\s+now)$/i;

/** Parses "30 days ago" / "2 weeks from now" (case-insensitive, singular or plural units); null when it is not one. */
export function parseRelativeDate(text: string): RelativeDate | null {
  const m = RELATIVE_TEXT.exec(text.trim());
  if (!m) return null;
  return {
    amount: Number(m[1]),
    unit: UNITS.get(`${m[2].toLowerCase()}s`)!,
    direction: m[3].toLowerCase() === 'ago' ? RelativeDateDirection.Ago : RelativeDateDirection.FromNow,
  };
}

/** The instant a relative date stands for at `now`; months and years follow the UTC calendar (clamped to the month's last day). */
export function resolveRelativeDate(relative: RelativeDate, now: Date): Date {
  const sign = relative.direction === RelativeDateDirection.Ago ? -1 : 1;
  const amount = sign * relative.amount;
  const t = now.getTime();
  switch (relative.unit) {
    case RelativeDateUnit.Minutes:
      return new Date(t + amount * 60_000);
    case RelativeDateUnit.Hours:
      return new Date(t + amount * 3_600_000);
    case RelativeDateUnit.Days:
      return new Date(t + amount * 86_400_000);
    case RelativeDateUnit.Weeks:
      return new Date(t + amount * 7 * 86_400_000);
    case RelativeDateUnit.Months:
    case RelativeDateUnit.Years: {
      const months = relative.unit === RelativeDateUnit.Years ? amount * 12 : amount;
      const d = new Date(t);
      const day = d.getUTCDate();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + months);
      const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(day, lastDay));
      return d;
    }
  }
}

/** Renders a relative date as text, e.g. `30 days ago`. */
export function describeRelativeDate(relative: RelativeDate): string {
  const unit = relative.unit.toLowerCase();
  return `${relative.amount} ${relative.amount === 1 ? unit.slice(0, -1) : unit} ${relative.direction === RelativeDateDirection.Ago ? 'ago' : 'from now'}`;
}

export function isScopingRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 37)}…` : v}"`;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

/** The result of validating scoping criteria: the normalised criteria, or the errors by field path. */
export interface ScopingValidationResult {
  criteria: ScopingGroup[];
  errors: ValidationErrors;
}

/**
 * Validates scoping criteria as sent by a client against the attributes a rule may test, and returns
 * them normalised (defaults filled in, absolute dates as ISO instants, relative dates as objects, GUIDs
 * lower-cased). Errors are keyed by path, e.g. `scopingCriteria[0].criteria[1].operator`.
 */
export function validateScopingCriteria(
  input: unknown,
  attributes: ReadonlyMap<number, ScopingAttribute>,
  field = 'scopingCriteria',
): ScopingValidationResult {
  const errors = new ValidationErrorCollector();
  const add = (path: string, message: string) => errors.add(path, message);
  const counts = { groups: 0, criteria: 0 };

  if (input === null || input === undefined) return { criteria: [], errors: errors.byField };
  if (!Array.isArray(input)) {
    add(field, `${field} must be an array of groups (an empty array: every object is in scope).`);
    return { criteria: [], errors: errors.byField };
  }

  const criterion = (raw: unknown, path: string): ScopingCriterion | null => {
    if (!isScopingRecord(raw)) {
      add(path, `${path} must be an object with attributeId, operator and value.`);
      return null;
    }
    for (const key of Object.keys(raw)) {
      if (!['attributeId', 'operator', 'value', 'caseSensitive'].includes(key))
        add(`${path}.${key}`, `${path}.${key} is not a known field (attributeId, operator, value, caseSensitive).`);
    }
    let ok = true;
    const attributeId = raw.attributeId;
    let attribute: ScopingAttribute | undefined;
    if (typeof attributeId !== 'number' || !Number.isSafeInteger(attributeId) || attributeId < 1) {
      add(`${path}.attributeId`, `${path}.attributeId must be a positive whole number.`);
      ok = false;
    } else {
      attribute = attributes.get(attributeId);
      if (!attribute) {
        add(
          `${path}.attributeId`,
          `Attribute ${attributeId} is not one this rule can test: Import rules test attributes of their connected system object type, ` +
            `Export rules attributes of their metaverse object type.`,
        );
        ok = false;
      }
    }
    const operator = raw.operator;
    if (typeof operator !== 'string' || !OPERATORS.has(operator)) {
      add(`${path}.operator`, `${path}.operator must be one of ${Object.values(ScopingOperator).join(', ')}.`);
      return null;
    }
    const op = operator as ScopingOperator;
    let caseSensitive = false;
    if (raw.caseSensitive !== undefined && raw.caseSensitive !== null) {
      if (typeof raw.caseSensitive !== 'boolean') {
        add(`${path}.caseSensitive`, `${path}.caseSensitive must be true or false.`);
        ok = false;
      } else caseSensitive = raw.caseSensitive;
    }
    if (!attribute) return null;
    const { kind, operators } = scopingKindOf(attribute.type);
    if (!operators.includes(op)) {
      add(`${path}.operator`, `${op} cannot be used with "${attribute.name}" (${attribute.type}); use one of ${operators.join(', ')}.`);
      return null;
    }
    if (caseSensitive && kind !== 'text') {
      add(`${path}.caseSensitive`, `caseSensitive applies to text attributes only; "${attribute.name}" is ${attribute.type}.`);
      ok = false;
    }
    const value = criterionValue(raw.value, op, kind, attribute, `${path}.value`, add);
    if (value === undefined || !ok) return null;
    return { attributeId: attribute.id, operator: op, value, caseSensitive };
  };

  const group = (raw: unknown, path: string, depth: number): ScopingGroup | null => {
    // Past a limit, stop validating (the limit error is reported once, at the top).
    if (++counts.groups > SCOPING_LIMITS.maxGroups) return null;
    if (!isScopingRecord(raw)) {
      add(path, `${path} must be a group: { "type": "All" | "Any", "criteria": [...], "groups": [...] }.`);
      return null;
    }
    for (const key of Object.keys(raw)) {
      if (!['type', 'criteria', 'groups'].includes(key))
        add(`${path}.${key}`, `${path}.${key} is not a known field (type, criteria, groups).`);
    }
    let ok = true;
    const type = raw.type;
    if (type !== ScopingGroupType.All && type !== ScopingGroupType.Any) {
      add(`${path}.type`, `${path}.type must be All (every item must hold) or Any (at least one must hold).`);
      ok = false;
    }
    const list = (key: 'criteria' | 'groups'): unknown[] => {
      const v = raw[key];
      if (v === undefined || v === null) return [];
      if (!Array.isArray(v)) {
        add(`${path}.${key}`, `${path}.${key} must be an array.`);
        ok = false;
        return [];
      }
      return v;
    };
    const rawCriteria = list('criteria');
    const rawGroups = list('groups');
    if (ok && rawCriteria.length === 0 && rawGroups.length === 0) {
      add(path, `${path} is empty: a group needs at least one criterion or nested group.`);
      ok = false;
    }
    if (rawGroups.length && depth >= SCOPING_LIMITS.maxDepth) {
      add(`${path}.groups`, `Groups can be nested at most ${SCOPING_LIMITS.maxDepth} levels deep.`);
      return null;
    }
    counts.criteria += rawCriteria.length;
    if (counts.criteria > SCOPING_LIMITS.maxCriteria) return null;
    const criteria = rawCriteria.map((c, i) => criterion(c, `${path}.criteria[${i}]`));
    const groups = rawGroups.map((g, i) => group(g, `${path}.groups[${i}]`, depth + 1));
    if (!ok || criteria.includes(null) || groups.includes(null)) return null;
    return { type: type as ScopingGroupType, criteria: criteria as ScopingCriterion[], groups: groups as ScopingGroup[] };
  };

  const groups = input.map((g, i) => group(g, `${field}[${i}]`, 1));
  if (counts.criteria > SCOPING_LIMITS.maxCriteria) add(field, `A rule can have at most ${SCOPING_LIMITS.maxCriteria} criteria in all.`);
  if (counts.groups > SCOPING_LIMITS.maxGroups) add(field, `A rule can have at most ${SCOPING_LIMITS.maxGroups} groups in all.`);
  if (errors.hasErrors || groups.includes(null)) return { criteria: [], errors: errors.byField };
  return { criteria: groups as ScopingGroup[], errors: errors.byField };
}

function criterionValue(
  raw: unknown,
  op: ScopingOperator,
  kind: ScopingValueKind,
  attribute: ScopingAttribute,
  path: string,
  add: (path: string, message: string) => void,
): ScopingValue | undefined {
  const fail = (message: string): undefined => {
    add(path, message);
    return undefined;
  };
  if (op === ScopingOperator.IsPresent || op === ScopingOperator.IsNotPresent) {
    return raw === undefined || raw === null ? null : fail(`${op} takes no value; leave value out.`);
  }
  if (raw === undefined || raw === null) return fail(`${op} needs a value to compare "${attribute.name}" with.`);
  switch (kind) {
    case 'text':
      if (typeof raw !== 'string') return fail(`"${attribute.name}" is text: the value must be a string (got ${describe(raw)}).`);
      if (raw.length === 0) return fail(`The value must not be empty; to test for a missing value use IsNotPresent.`);
      if (raw.length > SCOPING_LIMITS.maxValueLength) return fail(`The value must be at most ${SCOPING_LIMITS.maxValueLength} characters.`);
      return raw;
    case 'integer':
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw))
        return fail(`"${attribute.name}" is ${attribute.type}: the value must be a whole number (got ${describe(raw)}).`);
      return raw;
    case 'number':
      if (typeof raw !== 'number' || !Number.isFinite(raw))
        return fail(`"${attribute.name}" is ${attribute.type}: the value must be a number (got ${describe(raw)}).`);
      return raw;
    case 'boolean':
      if (typeof raw !== 'boolean') return fail(`"${attribute.name}" is Boolean: the value must be true or false (got ${describe(raw)}).`);
      return raw;
    case 'guid':
      if (typeof raw !== 'string' || !UUID.test(raw.trim()))
        return fail(`"${attribute.name}" is a Guid: the value must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx).`);
      return raw.trim().toLowerCase();
    case 'date':
      return dateValue(raw, attribute, path, fail);
    case 'presence':
      return fail(`"${attribute.name}" (${attribute.type}) can only be tested with IsPresent or IsNotPresent.`);
  }
}

function dateValue(
  raw: unknown,
  attribute: ScopingAttribute,
  path: string,
  fail: (message: string) => undefined,
): ScopingValue | undefined {
  const usage =
    `"${attribute.name}" is a DateTime: the value must be an ISO 8601 date or date-time ("2025-01-31", "2025-01-31T08:00:00Z"), ` +
    `a relative date as text ("30 days ago", "2 weeks from now") or { "relative": { "amount": 30, "unit": "Days", "direction": "Ago" } }`;
  if (typeof raw === 'string') {
    const absolute = parseDateTime(raw);
    if (absolute) return absolute.toISOString();
    const relative = parseRelativeDate(raw);
    if (relative) return relativeValue(relative, fail);
    return fail(`${usage} (got ${describe(raw)}).`);
  }
  if (!isScopingRecord(raw) || !isScopingRecord(raw.relative) || Object.keys(raw).length !== 1)
    return fail(`${usage} (got ${describe(raw)}).`);
  const r = raw.relative;
  const extra = Object.keys(r).filter((k) => !['amount', 'unit', 'direction'].includes(k));
  if (extra.length) return fail(`${path}.relative has unknown fields: ${extra.join(', ')} (amount, unit, direction).`);
  const unit = typeof r.unit === 'string' ? UNITS.get(r.unit.toLowerCase()) : undefined;
  const direction = typeof r.direction === 'string' ? DIRECTIONS.get(r.direction.toLowerCase()) : undefined;
  if (typeof r.amount !== 'number' || !Number.isSafeInteger(r.amount) || r.amount < 0)
    return fail(`${path}.relative.amount must be a whole number of at least 0.`);
  if (!unit) return fail(`${path}.relative.unit must be one of ${Object.values(RelativeDateUnit).join(', ')}.`);
  if (!direction) return fail(`${path}.relative.direction must be Ago or FromNow.`);
  return relativeValue({ amount: r.amount, unit, direction }, fail);
}

function relativeValue(relative: RelativeDate, fail: (message: string) => undefined): ScopingValue | undefined {
  if (relative.amount > SCOPING_LIMITS.maxRelativeAmount)
    return fail(`A relative date's amount must be at most ${SCOPING_LIMITS.maxRelativeAmount}.`);
  return { relative };
}
