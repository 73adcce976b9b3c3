import { DomainError } from '../errors/domain-error';

const TIMESPAN = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/;

/** Parses a timespan `hh:mm:ss` or `d.hh:mm:ss` (optional fraction) into milliseconds; null when malformed. */
export function parseTimeSpan(text: string): number | null {
  const m = TIMESPAN.exec(text.trim());
  if (!m) return null;
  const [, d, h, min, s, frac] = m;
  const hours = Number(h),
    minutes = Number(min),
    seconds = Number(s);
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  const fraction = frac ? Number(`0.${frac}`) : 0;
  return ((Number(d ?? 0) * 24 + hours) * 3600 + minutes * 60 + seconds + fraction) * 1000;
}

/** Like parseTimeSpan but throws a VALIDATION_ERROR naming the field. */
export function requireTimeSpan(field: string, text: string): number {
  const ms = parseTimeSpan(text);
  if (ms === null) throw DomainError.validation(field, `${field} must be a timespan such as "hh:mm:ss" or "d.hh:mm:ss".`);
  return ms;
}

/** Formats milliseconds as `hh:mm:ss` (under a day) or `d.hh:mm:ss`, with fractional seconds when present. */
export function formatTimeSpan(ms: number): string {
  const totalMs = Math.max(0, Math.round(ms));
  const days = Math.floor(totalMs / 86_400_000);
  const rest = totalMs % 86_400_000;
  const hh = String(Math.floor(rest / 3_600_000)).padStart(2, '0');
  const mm = String(Math.floor((rest % 3_600_000) / 60_000)).padStart(2, '0');
  const ss = String(Math.floor((rest % 60_000) / 1000)).padStart(2, '0');
  const frac = totalMs % 1000 ? `.${String(totalMs % 1000).padStart(3, '0')}` : '';
  return `${days ? `${days}.` : ''}${hh}:${mm}:${ss}${frac}`;
}
