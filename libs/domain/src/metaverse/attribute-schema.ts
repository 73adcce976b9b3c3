import { AttributeDataType, AttributePlurality } from './metaverse-types';

/** Data types whose values can be kept in the lookup table (exact, case-insensitive filters and matching). */
export const INDEXABLE_ATTRIBUTE_TYPES: readonly AttributeDataType[] = [
  AttributeDataType.String,
  AttributeDataType.Text,
  AttributeDataType.Guid,
  AttributeDataType.Integer,
  AttributeDataType.LongNumber,
];

export function isIndexableAttributeType(type: string): boolean {
  return (INDEXABLE_ATTRIBUTE_TYPES as readonly string[]).includes(type);
}

/** Longest name of a metaverse object type or attribute. */
export const MAX_SCHEMA_NAME_LENGTH = 200;
/** Longest description of a metaverse object type or attribute. */
export const MAX_SCHEMA_DESCRIPTION_LENGTH = 1000;

/**
 * Why a metaverse object type or attribute name is unusable, or null. Names are trimmed; commas are
 * refused because `attributes=` on the object list is a comma-separated list of names, and `*` means all.
 */
export function schemaNameProblem(name: unknown, what: string): string | null {
  if (typeof name !== 'string' || !name.trim()) return `${what} name is required.`;
  const trimmed = name.trim();
  if (trimmed.length > MAX_SCHEMA_NAME_LENGTH) return `${what} name must be at most ${MAX_SCHEMA_NAME_LENGTH} characters.`;
  if (trimmed.includes(',')) return `${what} name must not contain commas.`;
  if (trimmed === '*') return `${what} name must not be "*".`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return `${what} name must not contain control characters.`;
  return null;
}

/** The canonical data type for a name given in any case, or null. */
export function parseAttributeDataType(value: unknown): AttributeDataType | null {
  if (typeof value !== 'string') return null;
  return Object.values(AttributeDataType).find((t) => t.toLowerCase() === value.trim().toLowerCase()) ?? null;
}

/** The canonical plurality for a name given in any case, or null. */
export function parseAttributePlurality(value: unknown): AttributePlurality | null {
  if (typeof value !== 'string') return null;
  return Object.values(AttributePlurality).find((p) => p.toLowerCase() === value.trim().toLowerCase()) ?? null;
}
