import { parseDateTime } from '../common/date-time';
import { isUuid } from './attribute-values';
import { AttributeDataType } from './metaverse-types';

/** What the `attributes` query parameter of the object list asks for. */
export type AttributeSelection = { kind: 'none' } | { kind: 'all' } | { kind: 'named'; names: string[] };

/** Most attribute names one `attributes=` list may name. */
export const MAX_SELECTED_ATTRIBUTES = 100;

/**
 * Parses `attributes`: absent or blank → none; `*` → every attribute with a value; otherwise a
 * comma-separated list of names (trimmed, duplicates ignored case-insensitively). Returns an error
 * message instead when the list is malformed.
 */
export function parseAttributeSelection(raw: unknown): AttributeSelection | { error: string } {
  if (raw === undefined || raw === null) return { kind: 'none' };
  if (typeof raw !== 'string') return { error: 'attributes must be a comma-separated list of attribute names, or *.' };
  if (!raw.trim()) return { kind: 'none' };
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length === 1 && parts[0] === '*') return { kind: 'all' };
  if (parts.includes('*')) return { error: 'attributes: * means every attribute and cannot be combined with names.' };
  if (parts.some((p) => !p)) return { error: 'attributes must not contain empty names (check for doubled or trailing commas).' };
  const seen = new Set<string>();
  const names = parts.filter((p) => !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase()));
  if (names.length > MAX_SELECTED_ATTRIBUTES) return { error: `attributes may name at most ${MAX_SELECTED_ATTRIBUTES} attributes.` };
  return { kind: 'named', names };
}

/**
 * Turns a filter value from the query string into the text a stored value of `type` has, so the
 * (case-insensitive) comparison is exact: numbers canonical, booleans true/false, DateTime as ISO 8601
 * UTC, GUIDs and references lower-case. Returns an error message when the value cannot be of that type.
 */
export function normaliseFilterValue(type: string, raw: string): { value: string } | { error: string } {
  const text = raw.trim();
  switch (type) {
    case AttributeDataType.Integer:
    case AttributeDataType.LongNumber: {
      const n = /^[+-]?\d{1,16}$/.test(text) ? Number(text) : NaN;
      return Number.isSafeInteger(n) ? { value: String(n) } : { error: 'filterAttributeValue must be a whole number for this attribute.' };
    }
    case AttributeDataType.Decimal: {
      const n = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(text) ? Number(text) : NaN;
      return Number.isFinite(n) ? { value: String(n) } : { error: 'filterAttributeValue must be a number for this attribute.' };
    }
    case AttributeDataType.Boolean: {
      const b = text.toLowerCase();
      return b === 'true' || b === 'false' ? { value: b } : { error: 'filterAttributeValue must be true or false for this attribute.' };
    }
    case AttributeDataType.DateTime: {
      const d = parseDateTime(text);
      return d ? { value: d.toISOString() } : { error: 'filterAttributeValue must be an ISO 8601 date-time for this attribute.' };
    }
    case AttributeDataType.Guid:
    case AttributeDataType.Reference:
      return isUuid(text) ? { value: text.toLowerCase() } : { error: 'filterAttributeValue must be a GUID for this attribute.' };
    default:
      return { value: text };
  }
}

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Escapes LIKE wildcards so a search term matches literally (`\` is PostgreSQL's default LIKE escape)
 * and wraps it for a contains match.
 */
export function containsPattern(term: string): string {
  return `%${escapeLike(term)}%`;
}

/** Terms with fewer letters and digits than this match the start of a word (a trigram index needs three). */
export const MIN_CONTAINS_SEARCH_LENGTH = 3;

/**
 * The LIKE patterns (any of them may match) for a display-name search: a contains match, or for a term
 * of one or two letters/digits a match at the start of the name or of a word in it — the only form a
 * trigram index can serve for so short a term. A term without letters or digits stays a contains match.
 */
export function searchPatterns(term: string): string[] {
  const alphanumerics = term.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  if (alphanumerics === 0 || alphanumerics >= MIN_CONTAINS_SEARCH_LENGTH) return [containsPattern(term)];
  return [`${escapeLike(term)}%`, `% ${escapeLike(term)}%`];
}
