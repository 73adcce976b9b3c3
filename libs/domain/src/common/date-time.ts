// The one date/time parser of Meridian: connectors, the metaverse, scoping and expressions all read
// date-times through it, so they agree on every input. Every date is an instant in UTC; no local time
// zone is ever consulted.

/** Largest distance from the epoch a JavaScript Date can hold. */
export const MAX_DATE_MS = 8.64e15;

/** Builds a UTC instant without Date.UTC's mapping of years 0–99 to 1900–1999; null if out of range. */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): Date | null {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  if (Number.isNaN(date.getTime())) return null;
  // Reject rolled-over components such as 31 February.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})?(\d{2})?(?:[.,](\d{1,9}))?(Z|[+-]\d{2}(?:\d{2})?)$/i;

function offsetMinutes(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0');
  return zone[0] === '-' ? -minutes : minutes;
}

/**
 * Parses ISO 8601 (`2025-01-15`, `2025-01-15T10:30:00Z`, with optional fraction and offset; no
 * offset means UTC) and LDAP GeneralizedTime (`20250115103000.0Z`). Returns null for anything else.
 */
export function parseDateTime(text: string): Date | null {
  const trimmed = text.trim();
  const m = ISO.exec(trimmed) ?? GENERALIZED_TIME.exec(trimmed);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const hour = Number(h ?? 0),
    minute = Number(mi ?? 0),
    second = Number(s ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0;
  const date = utc(Number(y), Number(mo), Number(d), hour, minute, second, ms);
  if (!date) return null;
  const zoneMinutes = offsetMinutes(zone);
  if (Math.abs(zoneMinutes) > 18 * 60) return null;
  const shifted = date.getTime() - zoneMinutes * 60_000;
  return Math.abs(shifted) <= MAX_DATE_MS ? new Date(shifted) : null;
}

/** A date-time as Meridian stores it: ISO 8601 in UTC with milliseconds; null when the text is not a date-time. */
export function normaliseDateTime(text: string): string | null {
  return parseDateTime(text)?.toISOString() ?? null;
}
