/** One value of a multi-valued attribute; lists never hold null or nested lists. */
export type ExpressionItem = string | number | boolean | Date;

/** What an expression reads and returns: a scalar, null, or a list (a multi-valued attribute). */
export type ExpressionValue = ExpressionItem | null | readonly ExpressionItem[];

/** The type names used in messages and in the function reference. */
export type ExpressionTypeName = 'null' | 'text' | 'number' | 'boolean' | 'date' | 'list';

export const isList = Array.isArray as (value: ExpressionValue) => value is readonly ExpressionItem[];

/** The type name of a value, as administrators read it in messages. */
export function typeName(value: ExpressionValue): ExpressionTypeName {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'text';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return isList(value) ? 'list' : 'date';
  }
}

/** ISO 8601 in UTC with milliseconds, the text form of every date. */
export function dateToText(date: Date): string {
  return date.toISOString();
}

/** The text form of a scalar (null → empty), used by `+` and ToString. */
export function itemToText(value: ExpressionItem | null): string {
  if (value === null) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return dateToText(value);
  }
}

/** Null-aware equality: same type and value; dates by instant; lists element-wise in order. */
export function valuesEqual(a: ExpressionValue, b: ExpressionValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (isList(a) || isList(b)) {
    if (!isList(a) || !isList(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!itemsEqual(a[i], b[i])) return false;
    return true;
  }
  return itemsEqual(a, b);
}

function itemsEqual(a: ExpressionItem, b: ExpressionItem): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return false;
}

/**
 * Orders two non-null scalars of the same type (number, text by UTF-16 code unit, date, boolean);
 * returns null when the types differ or a list is involved, so the caller can report it.
 */
export function compareItems(a: ExpressionItem, b: ExpressionItem): number | null {
  const ta = typeof a;
  if (ta !== typeof b) return null;
  if (ta === 'object') {
    if (!(a instanceof Date) || !(b instanceof Date)) return null;
    return a.getTime() - b.getTime();
  }
  if (ta === 'boolean') return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A short, unambiguous rendering of a value for messages and docs: text quoted, lists in brackets. */
export function formatExpressionValue(value: ExpressionValue): string {
  if (value === null) return 'null';
  if (isList(value)) return `[${value.map((v) => formatExpressionValue(v)).join(', ')}]`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date) return `date ${dateToText(value)}`;
  return String(value);
}

/** Like formatExpressionValue but cuts long text so error messages stay readable. */
export function previewValue(value: ExpressionValue): string {
  const text = formatExpressionValue(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The type name and a preview, e.g. `text "abc"`. */
export function describeValue(value: ExpressionValue): string {
  if (value === null) return 'null';
  if (value instanceof Date) return previewValue(value);
  return `${typeName(value)} ${previewValue(value)}`;
}
