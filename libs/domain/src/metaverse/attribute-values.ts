import { parseDateTime } from '../common/date-time';
import { AttributeDataType } from './metaverse-types';

/** The outcome of checking one value against its attribute's data type. */
export type CoercedValue = { ok: true; value: unknown } | { ok: false; message: string };

/** Longest text value of a String, Text or Binary attribute. */
export const MAX_TEXT_VALUE_LENGTH = 4000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An ISO 8601 date or date-time (Date() alone would take "1" as the year 2001). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };

/** Whether text is a UUID (any case). */
export function isUuid(text: unknown): text is string {
  return typeof text === 'string' && UUID.test(text);
}

/**
 * Checks one value given for an attribute and returns it in its stored form: numbers and booleans as
 * JSON numbers/booleans, DateTime as ISO 8601 UTC, Guid and Reference lower-case, text trimmed.
 */
export function coerceAttributeValue(attr: { name: string; type: string }, v: unknown): CoercedValue {
  const fail = (message: string): CoercedValue => ({ ok: false, message });
  switch (attr.type) {
    case AttributeDataType.Integer:
    case AttributeDataType.LongNumber:
    case AttributeDataType.Decimal:
      if (typeof v !== 'number' || !Number.isFinite(v) || (attr.type !== AttributeDataType.Decimal && !Number.isSafeInteger(v)))
        return fail(`${attr.name} must be a number.`);
      if (attr.type === AttributeDataType.Integer && (v < INT32.min || v > INT32.max))
        return fail(`${attr.name} must be from ${INT32.min} to ${INT32.max}.`);
      return { ok: true, value: v };
    case AttributeDataType.Boolean:
      return typeof v === 'boolean' ? { ok: true, value: v } : fail(`${attr.name} must be true or false.`);
    case AttributeDataType.DateTime: {
      const d = typeof v === 'string' ? parseDateTime(v) : null;
      return d ? { ok: true, value: d.toISOString() } : fail(`${attr.name} must be an ISO 8601 date-time.`);
    }
    case AttributeDataType.Reference:
      return isUuid(v) ? { ok: true, value: v.toLowerCase() } : fail(`${attr.name} must be a metaverse object id.`);
    case AttributeDataType.Guid:
      return typeof v === 'string' && isUuid(v.trim())
        ? { ok: true, value: v.trim().toLowerCase() }
        : fail(`${attr.name} must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx).`);
    case AttributeDataType.Binary:
      if (typeof v !== 'string' || !BASE64.test(v.trim())) return fail(`${attr.name} must be base64 text.`);
      if (v.trim().length > MAX_TEXT_VALUE_LENGTH) return fail(`${attr.name} must be at most ${MAX_TEXT_VALUE_LENGTH} characters.`);
      return { ok: true, value: v.trim() };
    default:
      if (typeof v !== 'string') return fail(`${attr.name} must be text.`);
      if (v.length > MAX_TEXT_VALUE_LENGTH) return fail(`${attr.name} must be at most ${MAX_TEXT_VALUE_LENGTH} characters.`);
      return { ok: true, value: v.trim() };
  }
}

/** A stored value spread over the typed fields of spec 2.10 (one of them holds it). */
export interface TypedAttributeValue {
  stringValue: string | null;
  dateTimeValue: string | null;
  intValue: number | null;
  guidValue: string | null;
  boolValue: boolean | null;
  referenceValueId: string | null;
}

/**
 * Places a stored value in the typed field for its data type: String, Text, Binary (base64) and
 * Decimal (as text, so no precision is lost) in stringValue; Integer and LongNumber in intValue.
 */
export function typedAttributeValue(type: string, v: unknown): TypedAttributeValue {
  const out: TypedAttributeValue = {
    stringValue: null,
    dateTimeValue: null,
    intValue: null,
    guidValue: null,
    boolValue: null,
    referenceValueId: null,
  };
  if (v === null || v === undefined) return out;
  switch (type) {
    case AttributeDataType.Integer:
    case AttributeDataType.LongNumber:
      if (typeof v === 'number') out.intValue = v;
      else out.stringValue = String(v);
      break;
    case AttributeDataType.Boolean:
      if (typeof v === 'boolean') out.boolValue = v;
      else out.stringValue = String(v);
      break;
    case AttributeDataType.DateTime:
      out.dateTimeValue = String(v);
      break;
    case AttributeDataType.Guid:
      out.guidValue = String(v);
      break;
    case AttributeDataType.Reference:
      out.referenceValueId = String(v);
      break;
    default:
      out.stringValue = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/** An object's display name (DOMAIN.md §3): its Display Name value, else its Account Name, else null. */
export function displayNameFrom(displayName: unknown, accountName: unknown): string | null {
  for (const v of [displayName, accountName]) {
    if (v !== null && v !== undefined && v !== '') return String(v);
  }
  return null;
}
