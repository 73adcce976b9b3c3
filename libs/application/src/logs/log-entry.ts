import { LOG_LEVELS } from '@meridian/platform';

/** A log entry as the API returns it (spec 2.16). */
export interface LogEntryView {
  timestamp: string;
  level: string;
  levelShort: string;
  message: string;
  exception: string | null;
  service: string;
  /** Structured properties of the line; the correlation id of the request or job is `properties.correlationId`. */
  properties: Record<string, unknown> | null;
}

export interface LogLevelView {
  name: string;
  short: string;
}

/** Levels in ascending severity: Verbose … Fatal. */
export const LOG_LEVEL_VIEWS: readonly LogLevelView[] = [...LOG_LEVELS].reverse().map((l) => ({ name: l.name, short: l.short }));

const levelLookup = new Map<string, LogLevelView>();
for (const l of LOG_LEVELS) {
  const view = { name: l.name, short: l.short };
  for (const alias of [l.name, l.short, l.key]) levelLookup.set(alias.toLowerCase(), view);
}
const INFORMATION = levelLookup.get('information')!;

/** The level named by a full name, short form or winston key, case-insensitive; undefined when unknown. */
export function resolveLogLevel(value: unknown): LogLevelView | undefined {
  return typeof value === 'string' ? levelLookup.get(value.trim().toLowerCase()) : undefined;
}

const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A parsed line with its time as a number, for merging. */
export interface TimedEntry {
  time: number;
  entry: LogEntryView;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Turns one line of a log file into an entry. Lines that are not a JSON object with a valid timestamp
 * (a partial line still being written, text from another writer) are skipped: without a time they cannot
 * be placed in the newest-first order, and the API must not return half-written lines.
 */
export function parseLogLine(line: string, service: string): TimedEntry | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isPlainObject(raw) || typeof raw.timestamp !== 'string') return null;
  const time = Date.parse(raw.timestamp);
  if (Number.isNaN(time)) return null;
  const level = resolveLogLevel(raw.level) ?? resolveLogLevel(raw.levelShort) ?? INFORMATION;
  const message =
    typeof raw.message === 'string' ? raw.message : raw.message === undefined || raw.message === null ? '' : JSON.stringify(raw.message);
  const exception = typeof raw.exception === 'string' && raw.exception !== '' ? raw.exception : null;
  const correlationId = typeof raw.correlationId === 'string' && raw.correlationId !== '' ? raw.correlationId : null;
  let properties = isPlainObject(raw.properties) ? raw.properties : null;
  if (correlationId) properties = properties ? { correlationId, ...properties } : { correlationId };
  // The logger writes toISOString() already; only other forms need rewriting.
  const timestamp = CANONICAL_TIME.test(raw.timestamp) ? raw.timestamp : new Date(time).toISOString();
  return { time, entry: { timestamp, level: level.name, levelShort: level.short, message, exception, service, properties } };
}
