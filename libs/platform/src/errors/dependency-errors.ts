import { Dependency, DEPENDENCY_NAMES, DependencyUnavailableError, DomainError } from '@meridian/domain';

/** SQLSTATEs that mean PostgreSQL is not there to answer (not that a statement was wrong). */
const DATABASE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

/** Socket-level failures; on their own they are a database connection (the queue's client reports its own shapes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What node-postgres, pg-pool and TypeORM say when the connection, not the statement, failed. */
const DATABASE_MESSAGES = [
  /^Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /is not queryable/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
  /sorry, too many clients already/i,
];

/** What ioredis and BullMQ say when Redis cannot be reached. */
const QUEUE_MESSAGES = [
  /^Connection is closed\.?$/i,
  /Stream isn't writeable/i,
  /Reached the max retries per request limit/i,
  /^BullMQ: .*(connection|reconnect)/i,
];
const QUEUE_ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ConnectionClosedError']);

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  driverError?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function classifyOne(e: ErrorShape): Dependency | null {
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const code = typeof e.code === 'string' ? e.code : '';
  if (QUEUE_ERROR_NAMES.has(name) || QUEUE_MESSAGES.some((re) => re.test(message))) return Dependency.Queue;
  if (/^[0-9A-Z]{5}$/.test(code) && (code.startsWith('08') || DATABASE_SQLSTATES.has(code))) return Dependency.Database;
  if (DATABASE_MESSAGES.some((re) => re.test(message))) return Dependency.Database;
  if (NETWORK_CODES.has(code)) return Dependency.Database;
  return null;
}

/**
 * Which dependency's outage an error is, or null when it is anything else (a bad statement, a bug).
 * Looks through TypeORM's `driverError`, `cause` chains and AggregateErrors (several addresses refused).
 * A DependencyUnavailableError names its own dependency; other DomainErrors are never outages.
 */
export function classifyDependencyError(error: unknown, depth = 0): Dependency | null {
  if (error instanceof DependencyUnavailableError) return error.dependency;
  // Any other DomainError is an answer the code chose (e.g. "Schema discovery failed: …" quoting a
  // connected system's own database), never an outage of Meridian's dependencies.
  if (error instanceof DomainError) return null;
  if (!error || typeof error !== 'object' || depth > 4) return null;
  const e = error as ErrorShape;
  const own = classifyOne(e);
  if (own) return own;
  for (const inner of [e.driverError, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const found = classifyDependencyError(inner, depth + 1);
    if (found) return found;
  }
  return null;
}

/** "The database (PostgreSQL) is unavailable…": the message a client reads in the 503 body. */
export function dependencyUnavailableMessage(dependency: Dependency): string {
  return `${DEPENDENCY_NAMES[dependency]} is unavailable; try again later.`;
}

/**
 * The error as a DependencyUnavailableError when it is a dependency outage (itself when it already is
 * one), otherwise null. The raw cause stays out of the message (it may name hosts and ports).
 */
export function asDependencyUnavailable(error: unknown): DependencyUnavailableError | null {
  if (error instanceof DependencyUnavailableError) return error;
  const dependency = classifyDependencyError(error);
  return dependency ? new DependencyUnavailableError(dependency, dependencyUnavailableMessage(dependency)) : null;
}

/** A short description of the underlying failure for the log (never a stack). */
export function failureSummary(error: unknown): string {
  if (error instanceof Error) {
    const inner = (error as ErrorShape).driverError ?? (error as ErrorShape).cause;
    const code = typeof (error as ErrorShape).code === 'string' ? ` (${String((error as ErrorShape).code)})` : '';
    const text =
      error.message ||
      (Array.isArray((error as ErrorShape).errors) ? failureSummary(((error as ErrorShape).errors as unknown[])[0]) : error.name);
    return inner instanceof Error && inner.message !== error.message ? `${text}${code}: ${inner.message}` : `${text}${code}`;
  }
  return String(error);
}
