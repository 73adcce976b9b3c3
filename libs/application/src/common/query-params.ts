import type { ValidationErrorCollector } from '@meridian/domain';

const absent = (raw: unknown) => raw === undefined || raw === null || raw === '';

/** One of an enum's values (exactly as spelled), null when absent; anything else is a field error. */
export function enumParam<T extends string>(
  raw: unknown,
  values: Record<string, T>,
  field: string,
  errors: ValidationErrorCollector,
): T | null {
  if (absent(raw)) return null;
  const allowed = Object.values(values);
  const found = allowed.find((v) => v === raw);
  if (!found) errors.add(field, `${field} must be one of ${allowed.join(', ')}.`);
  return found ?? null;
}

/** A positive 32-bit integer (number or decimal text), null when absent; anything else is a field error. */
export function positiveIntParam(raw: unknown, field: string, errors: ValidationErrorCollector): number | null {
  if (absent(raw)) return null;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,10}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647) {
    errors.add(field, `${field} must be a positive whole number.`);
    return null;
  }
  return n;
}

/** true/false (boolean or text), null when absent; anything else is a field error. */
export function booleanParam(raw: unknown, field: string, errors: ValidationErrorCollector): boolean | null {
  if (absent(raw)) return null;
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string' && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
  errors.add(field, `${field} must be true or false.`);
  return null;
}

/** Optional text of at most `max` characters, trimmed; null when absent or blank. */
export function textParam(raw: unknown, field: string, max: number, errors: ValidationErrorCollector): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string' || raw.length > max) {
    errors.add(field, `${field} must be text of at most ${max} characters.`);
    return null;
  }
  return raw.trim() || null;
}

/** A LIKE pattern matching values that start with `text` (wildcards in it taken literally). */
export function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
