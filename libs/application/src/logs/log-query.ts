import { parseDateTime } from '@meridian/domain';
import { resolveLogLevel } from './log-entry';
import { LOG_SERVICES, LogService } from './log-files';

/** Spec §8: log entries limit default 500, range 1-5000; offset default 0. */
export const LOG_LIMIT_DEFAULT = 500;
export const LOG_LIMIT_MAX = 5000;
export const LOG_SEARCH_MAX_LENGTH = 200;

/** A log query as its DTO validated it. */
export interface LogQuery {
  /** `web`, `worker` or `scheduler`; all three when absent. */
  service?: LogService;
  /** An ISO date or datetime: the UTC day that contains it. Today (UTC) when absent. */
  date?: string | Date;
  /** Level names or short forms, case-insensitive; all levels when absent or empty. */
  levels?: string[];
  /** Case-insensitive text searched in the message and the exception. */
  search?: string;
  limit?: number;
  offset?: number;
}

export interface ResolvedLogQuery {
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

/**
 * Fills in a query's defaults and resolves its values. The query was validated once, by its DTO: the
 * service is one of LOG_SERVICES, the date one parseLogDay reads, the levels names or short forms.
 */
export function resolveLogQuery(query: LogQuery, now = new Date()): ResolvedLogQuery {
  const levels = query.levels?.length ? query.levels.map((l) => resolveLogLevel(l)?.name).filter((l): l is string => !!l) : [];
  return {
    services: query.service ? [query.service] : [...LOG_SERVICES],
    day: (query.date !== undefined && query.date !== '' ? parseLogDay(query.date) : null) ?? now.toISOString().slice(0, 10),
    levels: levels.length ? new Set(levels) : null,
    search: query.search ? query.search.toLowerCase() : null,
    limit: query.limit ?? LOG_LIMIT_DEFAULT,
    offset: query.offset ?? 0,
  };
}
