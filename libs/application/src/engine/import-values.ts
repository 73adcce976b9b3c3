import { AttributeDataType, normaliseDateTime } from '@meridian/domain';
import type { ConnectorAttributeType } from '@meridian/connectors';

/** A value as the connector space stores it (JSONB): text, number or boolean. */
export type StoredValue = string | number | boolean;

/** `undefined`: the raw value does not parse as its type. `null`: no value at all. */
export type ConvertedValue = StoredValue | null | undefined;

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const GUID = /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i;
const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);

/**
 * One raw value from a connector in the storage form of its attribute type (DOMAIN.md §2.1): String
 * and Reference as text (references are resolved after the import), Integer and Decimal as numbers,
 * Boolean as true/false, DateTime as ISO 8601 UTC text (through Meridian's one date/time parser), Guid
 * lower-case without braces, Binary as the connector's text (e.g. base64). Empty text and null are "no
 * value".
 */
export function toStoredValue(type: ConnectorAttributeType, raw: unknown): ConvertedValue {
  if (raw === null || raw === undefined || raw === '') return null;
  switch (type) {
    case 'String':
      if (typeof raw === 'boolean') return String(raw);
      return typeof raw === 'string' ? raw : typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : undefined;
    case AttributeDataType.Reference:
      // A numeric foreign key is still a reference by its text.
      return typeof raw === 'string' ? raw : typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : undefined;
    case 'Binary':
      return typeof raw === 'string' ? raw : undefined;
    case 'Integer': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && INTEGER.test(raw.trim()) ? Number(raw.trim()) : NaN;
      return Number.isSafeInteger(n) ? n : undefined;
    }
    case 'Decimal': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && DECIMAL.test(raw.trim()) ? Number(raw.trim()) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'Boolean': {
      if (typeof raw === 'boolean') return raw;
      const word = typeof raw === 'string' ? raw.trim().toLowerCase() : typeof raw === 'number' ? String(raw) : '';
      if (TRUE_WORDS.has(word)) return true;
      return FALSE_WORDS.has(word) ? false : undefined;
    }
    case 'DateTime':
      return typeof raw === 'string' ? (normaliseDateTime(raw) ?? undefined) : undefined;
    case 'Guid': {
      const m = typeof raw === 'string' ? GUID.exec(raw.trim()) : null;
      return m ? m[1].toLowerCase() : undefined;
    }
    default:
      return undefined;
  }
}

/** Values of one attribute in storage form, and the raw values that did not parse. */
export interface ConvertedAttribute {
  values: StoredValue[];
  invalid: string[];
  /** A single-valued attribute received several values: none is kept. */
  tooMany: boolean;
}

/**
 * Converts the raw value(s) of one attribute; a single-valued attribute keeps at most one value. (A
 * single raw value that converts needs none of this: the import stores toStoredValue's result directly.)
 */
export function convertAttribute(type: ConnectorAttributeType, multi: boolean, raw: unknown): ConvertedAttribute {
  const out: ConvertedAttribute = { values: [], invalid: [], tooMany: false };
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    const value = toStoredValue(type, item);
    if (value === undefined) out.invalid.push(describeRaw(item));
    else if (value !== null) out.values.push(value);
  }
  if (!multi && out.values.length > 1) {
    out.tooMany = true;
    out.values = [];
  }
  return out;
}

/** A raw value for a message: short, and visibly not a parse of it. */
export function describeRaw(raw: unknown): string {
  const text = typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? String(raw));
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
