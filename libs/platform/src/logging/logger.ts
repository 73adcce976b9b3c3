import { LoggerService } from '@nestjs/common';
import * as winston from 'winston';
import 'winston-daily-rotate-file';
import { currentCorrelationId } from './correlation';

/** Meridian's log levels (spec 2.16), most severe first, with their short forms. */
export const LOG_LEVELS = [
  { name: 'Fatal', short: 'FTL', key: 'fatal' },
  { name: 'Error', short: 'ERR', key: 'error' },
  { name: 'Warning', short: 'WRN', key: 'warning' },
  { name: 'Information', short: 'INF', key: 'information' },
  { name: 'Debug', short: 'DBG', key: 'debug' },
  { name: 'Verbose', short: 'VRB', key: 'verbose' },
] as const;

export type LogLevelName = (typeof LOG_LEVELS)[number]['name'];

const winstonLevels = Object.fromEntries(LOG_LEVELS.map((l, i) => [l.key, i]));
const byKey = new Map<string, (typeof LOG_LEVELS)[number]>(LOG_LEVELS.map((l) => [l.key, l]));

export function levelKey(name: string): string {
  return LOG_LEVELS.find((l) => l.name.toLowerCase() === name.toLowerCase())?.key ?? 'information';
}

const SECRET_KEY = /pass(word)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key/i;
const SECRET_VALUE = /\bmer_[A-Za-z0-9_-]{16,}|\bBearer\s+[A-Za-z0-9._~+/-]+=*/g;

const MAX_DEPTH = 6;

/**
 * Replaces secret-looking properties and inline credentials so they never reach a log file. The result is
 * always JSON-serialisable: nesting deeper than MAX_DEPTH (which also cuts reference cycles) becomes
 * '[truncated]', bigints become strings, and objects with toJSON (Date, Buffer…) are serialised first.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SECRET_VALUE, '[redacted]');
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return depth === 0 ? value : { name: value.name, message: redact(value.message) };
  if (depth > MAX_DEPTH) return '[truncated]';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return redact((value as { toJSON(): unknown }).toJSON(), depth + 1);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

/** A log call must never throw into the caller: properties that cannot be made serialisable are replaced. */
function safeProperties(properties: Record<string, unknown>): unknown {
  try {
    const out = redact(properties);
    JSON.stringify(out);
    return out;
  } catch (e) {
    return { propertiesError: `properties could not be serialised: ${(e as Error).message}` };
  }
}

function messageText(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message === undefined || message === null) return '';
  try {
    return JSON.stringify(redact(message)) ?? String(message);
  } catch {
    return String(message);
  }
}

const RESERVED = new Set(['level', 'message', 'timestamp', 'service', 'correlationId', 'exception', 'stack', 'levelShort', 'properties']);

/** Shapes every entry as the JSON line the log reader and spec 2.16 expect. */
const meridianFormat = winston.format((info) => {
  const level = byKey.get(String(info.level)) ?? byKey.get('information')!;
  const properties: Record<string, unknown> = {};
  for (const key of Object.keys(info)) {
    if (!RESERVED.has(key) && typeof key === 'string') properties[key] = info[key];
  }
  let exception: string | undefined =
    typeof info.exception === 'string'
      ? info.exception
      : info.exception instanceof Error
        ? (info.exception.stack ?? info.exception.message)
        : undefined;
  // An `error`/`err` property becomes the exception when it is an Error or a plain message; anything else
  // (an error code object…) stays a property rather than vanishing.
  for (const key of ['error', 'err'] as const) {
    const err = info[key] as unknown;
    if (err instanceof Error) {
      exception ??= err.stack ?? err.message;
      delete properties[key];
    } else if (typeof err === 'string') {
      exception ??= err;
      delete properties[key];
    }
  }
  if (!exception && typeof info.stack === 'string') exception = info.stack;
  const entry: Record<string, unknown> = {
    timestamp: new Date().toISOString(),
    level: level.name,
    levelShort: level.short,
    service: info.service,
    message: redact(messageText(info.message)),
  };
  const correlationId = (info.correlationId as string | undefined) ?? currentCorrelationId();
  if (correlationId) entry.correlationId = correlationId;
  if (exception) entry.exception = redact(exception);
  if (Object.keys(properties).length) entry.properties = safeProperties(properties);
  // Replace the info object's enumerable fields with the entry (winston serialises `info`).
  for (const key of Object.keys(info)) delete (info as Record<string, unknown>)[key];
  Object.assign(info, entry, { level: level.key });
  return info;
});

const jsonLine = winston.format.printf((info) => {
  const { level: _key, ...rest } = info as Record<string, unknown>;
  const entry = rest as Record<string, unknown>;
  // `level` in the file is the spec's name (Information…), not winston's key.
  const name = byKey.get(String(info.level))?.name ?? 'Information';
  return JSON.stringify({
    timestamp: entry.timestamp,
    level: name,
    levelShort: entry.levelShort,
    service: entry.service,
    message: entry.message,
    correlationId: entry.correlationId,
    exception: entry.exception,
    properties: entry.properties,
  });
});

const consoleLine = winston.format.printf((info) => {
  const entry = info as Record<string, unknown>;
  const props = entry.properties ? ` ${JSON.stringify(entry.properties)}` : '';
  const exception = entry.exception ? `\n${String(entry.exception)}` : '';
  return `${String(entry.timestamp)} [${String(entry.levelShort)}] ${String(entry.service)}: ${String(entry.message)}${props}${exception}`;
});

export interface LoggerOptions {
  service: string;
  logDir: string;
  level: string;
  console: boolean;
  /** Rolling size per file (default 50m) and files kept per service (default 100), spec §8. */
  maxSize?: string;
  maxFiles?: number;
}

/** Creates the winston logger of one service: JSON lines in `<logDir>/<service>-YYYY-MM-DD.log[.N]`. */
export function createServiceLogger(options: LoggerOptions): winston.Logger {
  const transports: winston.transport[] = [
    new winston.transports.DailyRotateFile({
      dirname: options.logDir,
      filename: `${options.service}-%DATE%.log`,
      datePattern: 'YYYY-MM-DD',
      utc: true,
      maxSize: options.maxSize ?? '50m',
      maxFiles: options.maxFiles ?? 100,
      auditFile: `${options.logDir}/.${options.service}-audit.json`,
      format: jsonLine,
    } as any),
  ];
  if (options.console) transports.push(new winston.transports.Console({ format: consoleLine }));
  return winston.createLogger({
    levels: winstonLevels,
    level: levelKey(options.level),
    defaultMeta: { service: options.service },
    format: meridianFormat(),
    transports,
  });
}

/** Changes the minimum level of a running logger (the `Logging.MinimumLevel` setting). */
export function setLoggerLevel(logger: winston.Logger, levelName: string): void {
  const key = levelKey(levelName);
  logger.level = key;
  for (const t of logger.transports) t.level = key;
}

/** Adapts the winston logger to Nest's LoggerService so framework messages land in the same files. */
export class NestWinstonLogger implements LoggerService {
  constructor(private readonly logger: winston.Logger) {}

  private write(level: string, message: unknown, context?: unknown, extra?: Record<string, unknown>): void {
    const text = message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message);
    this.logger.log({
      level,
      message: text,
      ...(typeof context === 'string' ? { context } : {}),
      ...extra,
      ...(message instanceof Error ? { error: message } : {}),
    });
  }

  log(message: unknown, context?: string): void {
    this.write('information', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const hasStack = context !== undefined;
    this.write(
      'error',
      message,
      hasStack ? context : stackOrContext,
      hasStack && stackOrContext ? { exception: stackOrContext } : undefined,
    );
  }
  warn(message: unknown, context?: string): void {
    this.write('warning', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('verbose', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }
}

/**
 * Waits until every transport has flushed (used before a process exits). The logger's own 'finish' comes
 * as soon as the transports have accepted the last entry, while the rotating file stream may still hold it
 * in memory; so the file streams are ended and awaited as well.
 */
export async function closeLogger(logger: winston.Logger): Promise<void> {
  const fileStreams = logger.transports
    .map((t) => (t as { logStream?: { end?: (cb: () => void) => void } }).logStream)
    .filter((s): s is { end: (cb: () => void) => void } => typeof s?.end === 'function');
  const within = (ms: number, work: (done: () => void) => void) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      work(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  await within(2000, (done) => {
    logger.on('finish', done);
    logger.end();
  });
  await Promise.all(
    fileStreams.map((s) =>
      within(5000, (done) => {
        try {
          s.end(done);
        } catch {
          done();
        }
      }),
    ),
  );
}

export const LOGGER = Symbol('LOGGER');
export type Logger = winston.Logger;
