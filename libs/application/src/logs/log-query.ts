import { DomainError, parseDateTime, ValidationErrors } from '@meridian/domain';
import { LogLevelView, resolveLogLevel } from './log-entry';
import { LOG_SERVICES, LogService } from './log-files';

/** Spec §8: log entries limit default 500, range 1-5000; offset default 0. */
export const LOG_LIMIT_DEFAULT = 500;
export const LOG_LIMIT_MAX = 5000;
export const LOG_SEARCH_MAX_LENGTH = 200;

export interface LogQuery {
  /** `web`, `worker` or `scheduler`; all three when absent. */
  service?: string;
  /** An ISO date or datetime: the UTC day that contains it. Today (UTC) when absent. */
  date?: string | Date;
  /** Level names or short forms, case-insensitive; all levels when absent or empty. */
  levels?: string[];
  /** Case-insensitive text searched in the message and the exception. */
  search?: string;
  limit?: number;
  offset?: number;
}

export interface NormalisedLogQuery {
  services: LogService[];
  day: string;
  levels: Set<string> | null;
  search: string | null;
  limit: number;
  offset: number;
}

/**
 * The UTC day (YYYY-MM-DD) selected by an ISO date (`2025-03-01`) or datetime (`2025-03-01T23:30:00-02:00`
 * is 2025-03-02 in UTC; a datetime without an offset is read as UTC), read by the domain's date parser.
 * Null when the text is not one.
 */
export function parseLogDay(value: string | Date): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  return parseDateTime(value)?.toISOString().slice(0, 10) ?? null;
}

/** Validates a query and fills in its defaults; invalid values are a VALIDATION_ERROR naming each field. */
export function normaliseLogQuery(query: LogQuery, now = new Date()): NormalisedLogQuery {
  const errors: ValidationErrors = {};
  const fail = (field: string, message: string) => {
    (errors[field] ??= []).push(message);
  };

  let services: LogService[] = [...LOG_SERVICES];
  if (query.service !== undefined && query.service !== '') {
    if ((LOG_SERVICES as readonly string[]).includes(query.service)) services = [query.service as LogService];
    else fail('service', `service must be one of ${LOG_SERVICES.join(', ')}.`);
  }

  let day = now.toISOString().slice(0, 10);
  if (query.date !== undefined && query.date !== '') {
    const parsed = parseLogDay(query.date);
    if (parsed) day = parsed;
    else fail('date', 'date must be an ISO 8601 date or datetime, e.g. 2025-03-01 or 2025-03-01T10:00:00Z.');
  }

  let levels: Set<string> | null = null;
  if (query.levels?.length) {
    const resolved = query.levels.map((l) => resolveLogLevel(l));
    if (resolved.some((l) => !l)) fail('levels', `levels must be level names: ${levelList()}.`);
    else levels = new Set(resolved.map((l) => (l as LogLevelView).name));
  }

  let search: string | null = null;
  if (query.search !== undefined && query.search !== '') {
    if (query.search.length > LOG_SEARCH_MAX_LENGTH) fail('search', `search must be at most ${LOG_SEARCH_MAX_LENGTH} characters.`);
    else search = query.search.toLowerCase();
  }

  const limit = query.limit ?? LOG_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > LOG_LIMIT_MAX)
    fail('limit', `limit must be a whole number from 1 to ${LOG_LIMIT_MAX}.`);
  const offset = query.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) fail('offset', 'offset must be a whole number of at least 0.');

  if (Object.keys(errors).length) throw DomainError.validationMany(errors);
  return { services, day, levels, search, limit, offset };
}

function levelList(): string {
  return 'Verbose, Debug, Information, Warning, Error, Fatal (or VRB, DBG, INF, WRN, ERR, FTL)';
}
