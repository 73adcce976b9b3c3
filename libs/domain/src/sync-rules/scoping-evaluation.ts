import { parseDateTime } from '../common/date-time';
import {
  isScopingRecord,
  scopingKindOf,
  RelativeDate,
  resolveRelativeDate,
  ScopingCriterion,
  ScopingGroup,
  ScopingGroupType,
  ScopingOperator,
  ScopingValueKind,
} from './scoping-criteria';

// Evaluation of validated scoping criteria (DOMAIN.md §2.2.2), used by the synchronisation engine per object.

/** Attribute values of the object being scoped, by attribute id: a Map, a record keyed by id, or a lookup function. */
export type ScopingValues = ReadonlyMap<number, unknown> | Readonly<Record<string, unknown>> | ((attributeId: number) => unknown);

/** Attribute data types by id; without an entry a criterion's value decides (relative → date, number, boolean, else text). */
export type ScopingAttributeTypes = ReadonlyMap<number, string>;

function read(values: ScopingValues, attributeId: number): unknown {
  if (typeof values === 'function') return values(attributeId);
  if (values instanceof Map) return values.get(attributeId);
  const record = values as Readonly<Record<string, unknown>>;
  const key = String(attributeId);
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The values of an attribute as a list, without absent ones (null, undefined, empty or whitespace-only text). */
function present(raw: unknown): unknown[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.filter((v) => v !== null && v !== undefined && !(typeof v === 'string' && v.trim() === ''));
}

function kindForEvaluation(criterion: ScopingCriterion, types: ScopingAttributeTypes | undefined): ScopingValueKind {
  const type = types?.get(criterion.attributeId);
  if (type !== undefined) return scopingKindOf(type).kind;
  const v = criterion.value;
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (isScopingRecord(v)) return 'date';
  return 'text';
}

function toText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  return null;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(v)) return Number(v);
  return NaN;
}

function toTime(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string') return parseDateTime(v)?.getTime() ?? NaN;
  return NaN;
}

function toBoolean(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
  }
  return null;
}

const NEGATION: Partial<Record<ScopingOperator, ScopingOperator>> = {
  [ScopingOperator.NotEquals]: ScopingOperator.Equals,
  [ScopingOperator.NotStartsWith]: ScopingOperator.StartsWith,
  [ScopingOperator.NotEndsWith]: ScopingOperator.EndsWith,
  [ScopingOperator.NotContains]: ScopingOperator.Contains,
};

function compareOrdered(op: ScopingOperator, a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return false;
  switch (op) {
    case ScopingOperator.Equals:
      return a === b;
    case ScopingOperator.LessThan:
      return a < b;
    case ScopingOperator.LessThanOrEqual:
      return a <= b;
    case ScopingOperator.GreaterThan:
      return a > b;
    case ScopingOperator.GreaterThanOrEqual:
      return a >= b;
    default:
      return false;
  }
}

/** Whether one value satisfies a positive (non-negated) operator. */
function itemMatches(op: ScopingOperator, kind: ScopingValueKind, item: unknown, criterion: ScopingCriterion, now: Date): boolean {
  const value = criterion.value;
  switch (kind) {
    case 'text': {
      let a = toText(item);
      let b = typeof value === 'string' ? value : toText(value);
      if (a === null || b === null) return false;
      if (!criterion.caseSensitive) {
        a = a.toLowerCase();
        b = b.toLowerCase();
      }
      switch (op) {
        case ScopingOperator.Equals:
          return a === b;
        case ScopingOperator.StartsWith:
          return a.startsWith(b);
        case ScopingOperator.EndsWith:
          return a.endsWith(b);
        case ScopingOperator.Contains:
          return a.includes(b);
        default:
          return false;
      }
    }
    case 'guid': {
      const a = toText(item);
      return a !== null && typeof value === 'string' && a.trim().toLowerCase() === value.toLowerCase();
    }
    case 'boolean': {
      const a = toBoolean(item);
      return a !== null && op === ScopingOperator.Equals && a === value;
    }
    case 'integer':
    case 'number':
      return compareOrdered(op, toNumber(item), toNumber(value));
    case 'date': {
      const target = isScopingRecord(value)
        ? resolveRelativeDate((value as { relative: RelativeDate }).relative, now).getTime()
        : toTime(value);
      return compareOrdered(op, toTime(item), target);
    }
    case 'presence':
      return false;
  }
}

function criterionHolds(criterion: ScopingCriterion, values: ScopingValues, now: Date, types: ScopingAttributeTypes | undefined): boolean {
  const items = present(read(values, criterion.attributeId));
  if (criterion.operator === ScopingOperator.IsPresent) return items.length > 0;
  if (criterion.operator === ScopingOperator.IsNotPresent) return items.length === 0;
  const kind = kindForEvaluation(criterion, types);
  const positive = NEGATION[criterion.operator];
  // Positive operators hold when any value (of a multi-valued attribute) matches; negated ones when none does.
  if (positive) return !items.some((item) => itemMatches(positive, kind, item, criterion, now));
  return items.some((item) => itemMatches(criterion.operator, kind, item, criterion, now));
}

function groupHolds(group: ScopingGroup, values: ScopingValues, now: Date, types: ScopingAttributeTypes | undefined): boolean {
  if (group.type === ScopingGroupType.All) {
    return (
      group.criteria.every((c) => criterionHolds(c, values, now, types)) && group.groups.every((g) => groupHolds(g, values, now, types))
    );
  }
  return group.criteria.some((c) => criterionHolds(c, values, now, types)) || group.groups.some((g) => groupHolds(g, values, now, types));
}

/**
 * Whether an object is in scope of validated criteria: no groups → in scope; otherwise at least one
 * top-level group must hold. Relative dates are resolved against `now` (inject the clock in tests).
 * Missing values: comparisons are false, negated comparisons (NotEquals, NotContains…) are true.
 */
export function evaluateScoping(
  criteria: readonly ScopingGroup[],
  values: ScopingValues,
  now: Date,
  types?: ScopingAttributeTypes,
): boolean {
  if (criteria.length === 0) return true;
  return criteria.some((g) => groupHolds(g, values, now, types));
}

/** Every attribute id the criteria test, each once. */
export function scopingAttributeIds(criteria: readonly ScopingGroup[]): number[] {
  const ids = new Set<number>();
  const visit = (g: ScopingGroup) => {
    for (const c of g.criteria) ids.add(c.attributeId);
    g.groups.forEach(visit);
  };
  criteria.forEach(visit);
  return [...ids];
}
