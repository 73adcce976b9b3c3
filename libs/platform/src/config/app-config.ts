import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

export type ServiceName = 'web' | 'worker' | 'scheduler' | 'migrate';

/** Typed configuration of every Meridian process, validated once at boot (STYLE.md §7). */
export interface AppConfig {
  service: ServiceName;
  databaseUrl: string;
  redisUrl: string;
  /** Key prefix for queues in Redis, so several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  port: number;
  host: string;
  bootstrapApiKey: string | null;
  /** 32-byte AES-256-GCM key for connector secrets. */
  encryptionKey: Buffer;
  logDir: string;
  logLevel: string;
  logToConsole: boolean;
  oidc: OidcConfig | null;
  tls: { certFile: string; keyFile: string } | null;
  bodyLimit: string;
  corsOrigins: string[];
  trustProxy: boolean;
  workerConcurrency: number;
  connectorFilesRoot: string;
  scriptsRoot: string;
  schedulerCatchUpWindowMs: number;
  version: string;
}

export interface OidcConfig {
  authority: string;
  clientId: string;
  scopes: string[];
  /** Accepted `aud` values of access tokens; the first is the one clients request (auth config). */
  audiences: string[];
  subjectClaim: string;
  subjectAttribute: string;
  algorithms: string[];
  allowInsecureHttp: boolean;
  /** Bound on each call to the provider (discovery, key set), in milliseconds. */
  httpTimeoutMs: number;
}

/** A configuration problem: one line that names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Configuration error: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LEVELS = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'];
const SIZE = /^\d+(?:b|kb|mb)$/i;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const value = str(env, name) ?? fallback;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, `is not a valid URL (expected e.g. ${fallback}).`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(
      name,
      `must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')} (got ${parsed.protocol.replace(':', '')}).`,
    );
  }
  return value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = str(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${value}").`);
  }
  return Number(value);
}

function seconds(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = str(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+(?:\.\d+)?$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a number of seconds from ${min} to ${max} (got "${value}").`);
  }
  return Number(value);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const value = str(env, name);
  if (value === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new ConfigError(name, `must be true or false (got "${value}").`);
}

function path(env: Env, name: string, fallback: string): string {
  const value = str(env, name) ?? fallback;
  return isAbsolute(value) ? value : resolve(value);
}

function encryptionKey(env: Env): Buffer {
  const fileName = str(env, 'MERIDIAN_ENCRYPTION_KEY_FILE');
  let raw = str(env, 'MERIDIAN_ENCRYPTION_KEY');
  let variable = 'MERIDIAN_ENCRYPTION_KEY';
  if (!raw && fileName) {
    variable = 'MERIDIAN_ENCRYPTION_KEY_FILE';
    if (!existsSync(fileName)) throw new ConfigError(variable, `names a file that does not exist: ${fileName}.`);
    raw = readFileSync(fileName, 'utf8').trim();
  }
  if (!raw) {
    throw new ConfigError(
      'MERIDIAN_ENCRYPTION_KEY',
      'is required: 32 random bytes as base64 or 64 hex characters (generate one with `openssl rand -base64 32`), or set MERIDIAN_ENCRYPTION_KEY_FILE.',
    );
  }
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(raw) && key.toString('base64').replace(/=+$/, '') !== raw.replace(/=+$/, ''))) {
    throw new ConfigError(variable, 'must be 32 bytes encoded as base64 (44 characters) or hex (64 characters).');
  }
  return key;
}

function oidc(env: Env): OidcConfig | null {
  const authority = str(env, 'OIDC_AUTHORITY');
  const clientId = str(env, 'OIDC_CLIENT_ID');
  if (!authority && !clientId) return null;
  if (!authority) throw new ConfigError('OIDC_AUTHORITY', 'is required when OIDC_CLIENT_ID is set.');
  if (!clientId) throw new ConfigError('OIDC_CLIENT_ID', 'is required when OIDC_AUTHORITY is set.');
  const allowInsecureHttp = bool(env, 'OIDC_ALLOW_INSECURE_HTTP', false);
  url(env, 'OIDC_AUTHORITY', authority, allowInsecureHttp ? ['https:', 'http:'] : ['https:']);
  const scopes = (str(env, 'OIDC_SCOPES') ?? 'openid profile').split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) throw new ConfigError('OIDC_SCOPES', 'must include "openid".');
  const algorithms = (str(env, 'OIDC_ALGORITHMS') ?? 'RS256,PS256,ES256').split(/[\s,]+/).filter(Boolean);
  const allowed = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
  const bad = algorithms.find((a) => !allowed.includes(a));
  if (bad) throw new ConfigError('OIDC_ALGORITHMS', `contains "${bad}"; allowed: ${allowed.join(', ')} (never "none" or HMAC).`);
  return {
    authority: authority.replace(/\/+$/, ''),
    clientId,
    scopes,
    audiences: (str(env, 'OIDC_AUDIENCE') ?? clientId).split(/[\s,]+/).filter(Boolean),
    subjectClaim: str(env, 'OIDC_SUBJECT_CLAIM') ?? 'sub',
    subjectAttribute: str(env, 'OIDC_SUBJECT_ATTRIBUTE') ?? 'Subject Identifier',
    algorithms,
    allowInsecureHttp,
    httpTimeoutMs: seconds(env, 'OIDC_HTTP_TIMEOUT_SECONDS', 3, 0.1, 60) * 1000,
  };
}

function tls(env: Env): AppConfig['tls'] {
  const certFile = str(env, 'TLS_CERT_FILE');
  const keyFile = str(env, 'TLS_KEY_FILE');
  if (!certFile && !keyFile) return null;
  if (!certFile) throw new ConfigError('TLS_CERT_FILE', 'is required when TLS_KEY_FILE is set.');
  if (!keyFile) throw new ConfigError('TLS_KEY_FILE', 'is required when TLS_CERT_FILE is set.');
  if (!existsSync(certFile)) throw new ConfigError('TLS_CERT_FILE', `names a file that does not exist: ${certFile}.`);
  if (!existsSync(keyFile)) throw new ConfigError('TLS_KEY_FILE', `names a file that does not exist: ${keyFile}.`);
  return { certFile, keyFile };
}

function productVersion(): string {
  // The root package.json is the product's version; walk up from this file to find it.
  let dir = __dirname;
  for (let i = 0; i < 8; i++) {
    const candidate = resolve(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'meridian' && pkg.version) return pkg.version;
    }
    dir = resolve(dir, '..');
  }
  return '0.0.0';
}

/**
 * Reads and validates the environment. Throws ConfigError (one line naming the variable) on the first
 * missing or malformed value.
 */
export function loadConfig(service: ServiceName, env: Env = process.env): AppConfig {
  const logLevel = str(env, 'MERIDIAN_LOG_LEVEL') ?? 'Information';
  const level = LEVELS.find((l) => l.toLowerCase() === logLevel.toLowerCase());
  if (!level) throw new ConfigError('MERIDIAN_LOG_LEVEL', `must be one of ${LEVELS.join(', ')} (got "${logLevel}").`);
  const bootstrapApiKey = str(env, 'MERIDIAN_BOOTSTRAP_API_KEY') ?? null;
  if (bootstrapApiKey !== null && (bootstrapApiKey.length < 32 || bootstrapApiKey.length > 256 || /\s/.test(bootstrapApiKey))) {
    throw new ConfigError(
      'MERIDIAN_BOOTSTRAP_API_KEY',
      'must be 32 to 256 characters without spaces (generate one with `openssl rand -hex 32`).',
    );
  }
  const bodyLimit = str(env, 'MERIDIAN_BODY_LIMIT') ?? '1mb';
  if (!SIZE.test(bodyLimit)) throw new ConfigError('MERIDIAN_BODY_LIMIT', `must be a size such as 512kb or 1mb (got "${bodyLimit}").`);
  const redisPrefix = str(env, 'MERIDIAN_REDIS_PREFIX') ?? 'meridian';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(redisPrefix))
    throw new ConfigError('MERIDIAN_REDIS_PREFIX', 'must be 1-64 letters, digits, ".", "_" or "-".');
  const corsOrigins = (str(env, 'MERIDIAN_CORS_ORIGINS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const origin of corsOrigins) url({ MERIDIAN_CORS_ORIGINS: origin }, 'MERIDIAN_CORS_ORIGINS', origin, ['http:', 'https:']);
  return {
    service,
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/meridian', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisPrefix,
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'MERIDIAN_HOST') ?? '0.0.0.0',
    bootstrapApiKey,
    encryptionKey: encryptionKey(env),
    logDir: path(env, 'MERIDIAN_LOG_DIR', 'logs'),
    logLevel: level,
    logToConsole: bool(env, 'MERIDIAN_LOG_CONSOLE', true),
    oidc: oidc(env),
    tls: tls(env),
    bodyLimit,
    corsOrigins,
    trustProxy: bool(env, 'MERIDIAN_TRUST_PROXY', false),
    workerConcurrency: int(env, 'MERIDIAN_WORKER_CONCURRENCY', 2, 1, 64),
    connectorFilesRoot: path(env, 'MERIDIAN_CONNECTOR_FILES_ROOT', 'data/connector-files'),
    scriptsRoot: path(env, 'MERIDIAN_SCRIPTS_ROOT', 'data/scripts'),
    schedulerCatchUpWindowMs: int(env, 'MERIDIAN_SCHEDULER_CATCH_UP_MINUTES', 15, 0, 10_080) * 60_000,
    version: productVersion(),
  };
}

/** Loads the configuration or ends the process with the one-line reason. */
export function loadConfigOrExit(service: ServiceName, env: Env = process.env): AppConfig {
  try {
    return loadConfig(service, env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}

export const APP_CONFIG = Symbol('APP_CONFIG');
