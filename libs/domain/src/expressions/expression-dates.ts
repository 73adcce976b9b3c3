// Date handling for the expression functions. Every date is an instant shown in UTC; no local time
// zone is ever consulted, so results do not depend on the server's TZ.

/** 100-ns ticks between 1601-01-01 (the FILETIME epoch) and 1970-01-01 (the Unix epoch). */
const FILETIME_UNIX_EPOCH = 116_444_736_000_000_000n;
/** FILETIME 0x7FFFFFFFFFFFFFFF: Active Directory's "never" (e.g. accountExpires). */
export const FILETIME_NEVER = 0x7fff_ffff_ffff_ffffn;
/** Midnight UTC of the day an instant falls on. */
export function startOfUtcDay(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 86_400_000) * 86_400_000);
}

type FormatPart = string | ((d: Date) => string);

const pad = (n: number, width: number) => (n < 0 ? `-${String(-n).padStart(width, '0')}` : String(n).padStart(width, '0'));

/** Format fields: a run of one of these letters; the run length picks the variant. */
const FIELDS: Record<string, Record<number, (d: Date) => string> | undefined> = {
  y: { 4: (d) => pad(d.getUTCFullYear(), 4), 2: (d) => pad(((d.getUTCFullYear() % 100) + 100) % 100, 2) },
  M: { 2: (d) => pad(d.getUTCMonth() + 1, 2), 1: (d) => String(d.getUTCMonth() + 1) },
  d: { 2: (d) => pad(d.getUTCDate(), 2), 1: (d) => String(d.getUTCDate()) },
  H: { 2: (d) => pad(d.getUTCHours(), 2), 1: (d) => String(d.getUTCHours()) },
  m: { 2: (d) => pad(d.getUTCMinutes(), 2), 1: (d) => String(d.getUTCMinutes()) },
  s: { 2: (d) => pad(d.getUTCSeconds(), 2), 1: (d) => String(d.getUTCSeconds()) },
  f: {
    3: (d) => pad(d.getUTCMilliseconds(), 3),
    2: (d) => pad(Math.floor(d.getUTCMilliseconds() / 10), 2),
    1: (d) => String(Math.floor(d.getUTCMilliseconds() / 100)),
  },
};
const VARIANTS: Record<string, string> = {
  y: 'yyyy or yy',
  M: 'MM or M',
  d: 'dd or d',
  H: 'HH or H',
  m: 'mm or m',
  s: 'ss or s',
  f: 'fff, ff or f',
};
/** Letters that look like fields from other libraries; rejected so `YYYY-MM-DD` is not silently literal. */
const MISTAKES: Record<string, string> = {
  Y: 'use yyyy for the year',
  D: 'use dd for the day of the month',
  h: 'use HH for the hour (24-hour clock)',
  S: 'use ss for seconds',
  F: 'use fff for milliseconds',
};

/** The format tokens FormatDate understands, for the reference documentation. */
export const DATE_FORMAT_TOKENS: readonly { token: string; meaning: string }[] = [
  { token: 'yyyy', meaning: 'year, 4 digits' },
  { token: 'yy', meaning: 'year, last 2 digits' },
  { token: 'MM / M', meaning: 'month 01–12 / 1–12' },
  { token: 'dd / d', meaning: 'day of the month 01–31 / 1–31' },
  { token: 'HH / H', meaning: 'hour 00–23 / 0–23' },
  { token: 'mm / m', meaning: 'minute 00–59 / 0–59' },
  { token: 'ss / s', meaning: 'second 00–59 / 0–59' },
  { token: 'fff / ff / f', meaning: 'milliseconds / hundredths / tenths of a second' },
  { token: "'text'", meaning: "literal text ('' for a single quote)" },
];

/** Parses a FormatDate pattern into parts; returns an error message instead when it is malformed. */
export function parseDateFormat(format: string): FormatPart[] | string {
  const parts: FormatPart[] = [];
  let literal = '';
  let i = 0;
  while (i < format.length) {
    const ch = format[i];
    if (ch === "'") {
      const close = format.indexOf("'", i + 1);
      if (close < 0) return `unterminated quoted text at position ${i + 1} of the format`;
      literal += close === i + 1 ? "'" : format.slice(i + 1, close);
      i = close + 1;
      continue;
    }
    const variants = FIELDS[ch];
    if (variants) {
      let end = i;
      while (format[end] === ch) end++;
      const field = variants[end - i];
      if (!field) return `'${format.slice(i, end)}' is not a format field (use ${VARIANTS[ch]})`;
      if (literal) parts.push(literal);
      literal = '';
      parts.push(field);
      i = end;
      continue;
    }
    if (ch in MISTAKES) return `'${ch}' is not a format field: ${MISTAKES[ch]} (quote literal text as '${ch}')`;
    literal += ch;
    i++;
  }
  if (literal) parts.push(literal);
  return parts;
}

const formatCache = new Map<string, FormatPart[]>();

/** Formats an instant in UTC with a parsed pattern; throws via `fail` when the pattern is malformed. */
export function formatDate(date: Date, format: string, fail: (message: string) => never): string {
  let parts = formatCache.get(format);
  if (!parts) {
    const parsed = parseDateFormat(format);
    if (typeof parsed === 'string') return fail(`Invalid date format: ${parsed}`);
    parts = parsed;
    // A small memo: mappings use a handful of formats; the bound keeps hostile inputs from growing it.
    if (formatCache.size >= 256) formatCache.clear();
    formatCache.set(format, parts);
  }
  let out = '';
  for (const part of parts) out += typeof part === 'string' ? part : part(date);
  return out;
}

/** A date as Windows FILETIME: 100-ns ticks since 1601-01-01 UTC, in decimal (exceeds 2^53). */
export function toFileTime(date: Date, fail: (message: string) => never): string {
  const ticks = BigInt(date.getTime()) * 10_000n + FILETIME_UNIX_EPOCH;
  if (ticks < 0n) return fail('dates before 1601-01-01 cannot be expressed as a FILETIME');
  return ticks.toString();
}

/** A FILETIME (decimal text or number) as a date; 0 and 0x7FFFFFFFFFFFFFFF ("never") give null. */
export function fromFileTime(value: number | string, fail: (message: string) => never): Date | null {
  let ticks: bigint;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) return fail(`a FILETIME must be a whole number ≥ 0, not ${value}`);
    ticks = BigInt(value);
  } else {
    const text = value.trim();
    if (!/^\d{1,20}$/.test(text)) return fail(`a FILETIME must be a whole number ≥ 0, not ${JSON.stringify(value.slice(0, 40))}`);
    ticks = BigInt(text);
  }
  if (ticks === 0n || ticks >= FILETIME_NEVER) return null;
  const delta = ticks - FILETIME_UNIX_EPOCH;
  // Floor division so instants before 1970 round towards the past like the tick count does.
  const ms = delta >= 0n ? delta / 10_000n : -((-delta + 9_999n) / 10_000n);
  return new Date(Number(ms));
}
