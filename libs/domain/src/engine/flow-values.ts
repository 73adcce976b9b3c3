import { ExpressionError } from '../expressions';
import type { ExpressionContext } from '../expressions';
import { parseDateTime } from '../common/date-time';
import { AttributeDataType } from '../metaverse/metaverse-types';
import { ExecutionErrorType } from './engine.enums';
import type { EngineAttribute, MappingSource } from './sync-model';

export type FlowResult = { ok: true; values: unknown[] } | { ok: false; errorType: ExecutionErrorType; message: string };

/** What a mapping reads: the source object's stored values by attribute id, and the expression context. */
export interface FlowInput {
  /** Stored values of an attribute of the source object (references already turned into the target's ids). */
  values(attributeId: number): readonly unknown[];
  context: ExpressionContext;
}

/**
 * The values a mapping produces for its target, normalised to the target's type (text trimmed,
 * whitespace-only text is no value). Several sources: the first that yields a value wins for a
 * single-valued target; a multi-valued target takes the values of all of them (duplicates removed).
 */
export function evaluateMapping(sources: readonly MappingSource[], input: FlowInput, target: EngineAttribute): FlowResult {
  const collected: unknown[] = [];
  for (const source of sources) {
    let raw: readonly unknown[];
    if (source.expression) {
      try {
        raw = expressionValues(source.expression.evaluate(input.context));
      } catch (e) {
        const message = e instanceof ExpressionError || e instanceof Error ? e.message : String(e);
        return { ok: false, errorType: ExecutionErrorType.ExpressionEvaluationError, message: `${target.name}: ${message}` };
      }
    } else if (source.attributeId !== null) {
      raw = input.values(source.attributeId);
    } else {
      raw = [];
    }
    const normalised = normaliseValues(raw, target);
    if (!normalised.ok) return normalised;
    if (target.plurality !== 'Multi') {
      if (normalised.values.length > 1) {
        return {
          ok: false,
          errorType: ExecutionErrorType.MultiValuedToSingleValued,
          message: `${target.name} is single-valued but the source gave ${normalised.values.length} values.`,
        };
      }
      if (normalised.values.length === 1) return normalised;
      continue;
    }
    for (const v of normalised.values) if (!collected.some((c) => sameValue(c, v))) collected.push(v);
  }
  return { ok: true, values: collected };
}

function expressionValues(result: unknown): unknown[] {
  if (result === null || result === undefined) return [];
  if (Array.isArray(result)) return result.flatMap((r) => expressionValues(r));
  return [result];
}

/** Normalises values to an attribute's type; whitespace-only text and nulls are dropped. */
export function normaliseValues(raw: readonly unknown[], target: EngineAttribute): FlowResult {
  const out: unknown[] = [];
  for (const v of raw) {
    if (v === null || v === undefined) continue;
    const n = normaliseValue(v, target.type);
    if (n === undefined) continue;
    if (n === INVALID) {
      return {
        ok: false,
        errorType: ExecutionErrorType.UnhandledError,
        message: `${target.name}: "${String(v).slice(0, 100)}" is not a valid ${target.type} value.`,
      };
    }
    out.push(n);
  }
  return { ok: true, values: out };
}

const INVALID = Symbol('invalid');
/** A GUID, optionally in braces (the form import stores: lower case, no braces). */
const GUID = /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i;

function normaliseValue(v: unknown, type: string): unknown {
  switch (type) {
    case AttributeDataType.Integer:
    case AttributeDataType.LongNumber:
    case AttributeDataType.Decimal: {
      let n: number;
      if (typeof v === 'number') n = v;
      else {
        const t = String(v instanceof Date ? v.getTime() : v).trim();
        if (t === '') return undefined;
        n = Number(t);
      }
      // Whole-number types hold exact integers only, however the value arrives (as import stores them).
      if (!Number.isFinite(n) || (type !== AttributeDataType.Decimal && !Number.isSafeInteger(n))) return INVALID;
      return n;
    }
    case AttributeDataType.Boolean: {
      if (typeof v === 'boolean') return v;
      const t = String(v).trim().toLowerCase();
      if (t === '') return undefined;
      if (t === 'true' || t === '1' || t === 'yes') return true;
      if (t === 'false' || t === '0' || t === 'no') return false;
      return INVALID;
    }
    case AttributeDataType.DateTime: {
      if (v instanceof Date) return Number.isNaN(v.getTime()) ? INVALID : v.toISOString();
      const t = String(v).trim();
      if (t === '') return undefined;
      const d = parseDateTime(t);
      return d ? d.toISOString() : INVALID;
    }
    case AttributeDataType.Guid: {
      const t = String(v).trim();
      if (t === '') return undefined;
      const m = GUID.exec(t);
      return m ? m[1].toLowerCase() : INVALID;
    }
    case AttributeDataType.Reference: {
      const t = String(v).trim();
      return t === '' ? undefined : t.toLowerCase();
    }
    default: {
      const t = v instanceof Date ? v.toISOString() : typeof v === 'string' ? v.trim() : String(v).trim();
      return t === '' ? undefined : t;
    }
  }
}

/** Value equality as the engine compares values (text exactly, numbers and booleans by value). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a === 'number' || typeof b === 'number') {
    // Number('') is 0: blank text is no value, never the number zero.
    const other = typeof a === 'number' ? b : a;
    if (typeof other === 'string' && other.trim() === '') return false;
    return Number(a) === Number(b);
  }
  return String(a) === String(b);
}

/** Two value lists hold the same values (in any order, duplicates ignored). */
export function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length === 0 && b.length === 0) return true;
  return a.every((x) => b.some((y) => sameValue(x, y))) && b.every((y) => a.some((x) => sameValue(x, y)));
}
