import { ExpressionError, ExpressionErrorCode, expressionError, START_OF_TEXT, TokenRef } from './expression-error';
import { EXPRESSION_LIMITS } from './expression-limits';
import { ExpressionItem, ExpressionValue } from './expression-value';

/** Looks an attribute up by the name written in the expression; must itself ignore case. */
export type AttributeLookup = (name: string) => unknown;

/**
 * Where `mv[…]` or `cs[…]` read from: a plain record, a Map, prepared AttributeValues or a lookup
 * function. Names are matched ignoring case.
 */
export type AttributeSource = Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown> | AttributeValues | AttributeLookup;

/** The object being synchronised, as expressions see it. */
export interface ExpressionContext {
  readonly mv?: AttributeSource | null;
  readonly cs?: AttributeSource | null;
}

const hasOwn = Object.hasOwn;
const objectKeys = Object.keys;
const getTime = Date.prototype.getTime;
const isArray = Array.isArray;

/**
 * Attribute values keyed by lower-cased name, normalised once: build one per object with
 * `AttributeValues.from(record)` and share it across every mapping evaluated for that object. Reads
 * then skip per-read conversion and the case-insensitive scan a record needs for names not spelt
 * exactly as stored (which includes every missing attribute).
 */
export class AttributeValues {
  private constructor(private readonly values: ReadonlyMap<string, ExpressionValue>) {}

  /** Normalises a record or Map; throws ExpressionError (InvalidContext) for unsupported values or names differing only in case. */
  static from(source: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>): AttributeValues {
    const values = new Map<string, ExpressionValue>();
    const seen = new Map<string, string>();
    const add = (name: string, raw: unknown) => {
      const lower = name.toLowerCase();
      const previous = seen.get(lower);
      if (previous !== undefined) {
        throw contextError(`Attribute names '${previous}' and '${name}' differ only in case`, START_OF_TEXT);
      }
      seen.set(lower, name);
      values.set(lower, normaliseAttributeValue(raw, name, START_OF_TEXT));
    };
    if (source instanceof Map) for (const [name, raw] of source) add(String(name), raw);
    else for (const name of objectKeys(source)) add(name, (source as Record<string, unknown>)[name]);
    return new AttributeValues(values);
  }

  /** The value of an attribute (null when absent); `lowerName` must already be lower case. */
  getLower(lowerName: string): ExpressionValue {
    return this.values.get(lowerName) ?? null;
  }

  get size(): number {
    return this.values.size;
  }
}

function contextError(message: string, at: TokenRef): ExpressionError {
  return expressionError(ExpressionErrorCode.InvalidContext, message, at, 'evaluate');
}

/**
 * Reads one attribute without touching any prototype: own properties of records only, exact spelling
 * first, then a case-insensitive scan. Returns null when absent.
 */
export function readAttribute(source: AttributeSource | null | undefined, name: string, lower: string, at: TokenRef): ExpressionValue {
  if (source === null || source === undefined) return null;
  let raw: unknown;
  if (source instanceof AttributeValues) return source.getLower(lower);
  if (typeof source === 'function') {
    raw = (source as AttributeLookup)(name);
  } else if (source instanceof Map) {
    raw = source.get(name);
    if (raw === undefined) raw = source.get(lower);
    if (raw === undefined) {
      for (const [key, value] of source as ReadonlyMap<unknown, unknown>) {
        if (typeof key === 'string' && key.length === lower.length && key.toLowerCase() === lower) {
          raw = value;
          break;
        }
      }
    }
  } else if (typeof source === 'object' && !isArray(source)) {
    const record = source as Record<string, unknown>;
    if (hasOwn(record, name)) raw = record[name];
    else {
      const keys = objectKeys(record);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (key.length === lower.length && key.toLowerCase() === lower) {
          raw = record[key];
          break;
        }
      }
    }
  } else {
    throw contextError('The evaluation context must give mv and cs as an object, a Map or a function', at);
  }
  return normaliseAttributeValue(raw, name, at);
}

/**
 * Turns a host value into an expression value, copying dates and lists so evaluation never holds a
 * host object: undefined → null; safe bigint → number, larger bigint → decimal text; null and
 * undefined list entries are dropped. Anything else is rejected.
 */
export function normaliseAttributeValue(raw: unknown, name: string, at: TokenRef): ExpressionValue {
  switch (typeof raw) {
    case 'string':
      if (raw.length > EXPRESSION_LIMITS.maxStringLength) throw tooLong(name, at);
      return raw;
    case 'undefined':
      return null;
    case 'object':
      if (raw === null) return null;
      if (isArray(raw)) return normaliseList(raw, name, at);
      return toDate(raw, name, at);
    default:
      return normaliseItem(raw, name, at);
  }
}

function normaliseList(raw: readonly unknown[], name: string, at: TokenRef): ExpressionItem[] {
  const list: ExpressionItem[] = [];
  for (let i = 0; i < raw.length; i++) {
    const item = raw[i];
    if (item === null || item === undefined) continue;
    if (isArray(item)) throw contextError(`Attribute '${name}' holds a nested list`, at);
    list.push(typeof item === 'object' ? toDate(item, name, at) : normaliseItem(item, name, at));
  }
  return list;
}

function normaliseItem(raw: unknown, name: string, at: TokenRef): ExpressionItem {
  switch (typeof raw) {
    case 'string':
      if (raw.length > EXPRESSION_LIMITS.maxStringLength) throw tooLong(name, at);
      return raw;
    case 'number':
      if (!Number.isFinite(raw)) throw contextError(`Attribute '${name}' holds a number that is not finite`, at);
      return raw;
    case 'boolean':
      return raw;
    case 'bigint':
      return raw >= BigInt(Number.MIN_SAFE_INTEGER) && raw <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(raw) : raw.toString();
    default:
      throw contextError(`Attribute '${name}' holds a value of an unsupported type (${typeof raw})`, at);
  }
}

/** Accepts only genuine Date objects (checked through the intrinsic getTime, not instanceof) and copies them. */
function toDate(raw: object, name: string, at: TokenRef): Date {
  let time: number;
  try {
    time = getTime.call(raw as Date);
  } catch {
    throw contextError(`Attribute '${name}' holds an object, which is not an attribute value`, at);
  }
  if (Number.isNaN(time)) throw contextError(`Attribute '${name}' holds an invalid date`, at);
  return new Date(time);
}

function tooLong(name: string, at: TokenRef): ExpressionError {
  return expressionError(
    ExpressionErrorCode.LimitExceeded,
    `Attribute '${name}' is longer than ${EXPRESSION_LIMITS.maxStringLength.toLocaleString('en-US')} characters`,
    at,
    'evaluate',
  );
}
