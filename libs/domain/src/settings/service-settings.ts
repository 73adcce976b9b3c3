import { DomainError } from '../errors/domain-error';
import { formatTimeSpan, parseTimeSpan } from '../common/timespan';

export enum SettingValueType {
  String = 'String',
  Boolean = 'Boolean',
  Integer = 'Integer',
  TimeSpan = 'TimeSpan',
  Enum = 'Enum',
}

export type SettingValue = string | number | boolean;

export interface SettingDefinition {
  key: string;
  category: string;
  description: string;
  valueType: SettingValueType;
  defaultValue: SettingValue;
  /** Read-only settings reflect the deployment (environment) and refuse writes. */
  readOnly?: boolean;
  minimum?: number;
  maximum?: number;
  /** TimeSpan bounds in milliseconds. */
  minimumMs?: number;
  maximumMs?: number;
  allowedValues?: readonly string[];
}

export const LOG_LEVEL_NAMES = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'] as const;

export const SettingKeys = {
  SyncPageSize: 'Sync.PageSize',
  HistoryRetentionPeriod: 'History.RetentionPeriod',
  HistoryCleanupBatchSize: 'History.CleanupBatchSize',
  CsoChangeTracking: 'ChangeTracking.CsoChanges.Enabled',
  MvoChangeTracking: 'ChangeTracking.MvoChanges.Enabled',
  MaintenanceEnabled: 'Maintenance.IsEnabled',
  AuthenticatedRateLimit: 'Security.RateLimiting.AuthenticatedRequestsPerMinute',
  ApiKeyRateLimit: 'Security.RateLimiting.ApiKeyRequestsPerMinute',
  UnauthenticatedRateLimit: 'Security.RateLimiting.UnauthenticatedRequestsPerMinute',
  ExportMaxRetries: 'Export.MaxRetries',
  WorkerStaleTaskTimeout: 'Worker.StaleTaskTimeout',
  LoggingMinimumLevel: 'Logging.MinimumLevel',
  LoggingDirectory: 'Logging.Directory',
  SsoAuthority: 'Sso.Authority',
} as const;

const DAY = 86_400_000;

/** The service settings Meridian knows (DOMAIN.md §6), with types, defaults and bounds. */
export const SETTING_DEFINITIONS: readonly SettingDefinition[] = [
  {
    key: SettingKeys.SyncPageSize,
    category: 'Sync',
    valueType: SettingValueType.Integer,
    defaultValue: 1000,
    minimum: 1,
    maximum: 10_000,
    description: 'Objects read and written per page by import, synchronisation and export runs.',
  },
  {
    key: SettingKeys.HistoryRetentionPeriod,
    category: 'History',
    valueType: SettingValueType.TimeSpan,
    defaultValue: '90.00:00:00',
    minimumMs: DAY,
    maximumMs: 3650 * DAY,
    description: 'How long deleted-object history, change records and activities are kept before cleanup removes them.',
  },
  {
    key: SettingKeys.HistoryCleanupBatchSize,
    category: 'History',
    valueType: SettingValueType.Integer,
    defaultValue: 1000,
    minimum: 1,
    maximum: 100_000,
    description: 'Maximum records of each kind deleted in one cleanup batch.',
  },
  {
    key: SettingKeys.CsoChangeTracking,
    category: 'ChangeTracking',
    valueType: SettingValueType.Boolean,
    defaultValue: true,
    description: 'Record a change history for connector space objects.',
  },
  {
    key: SettingKeys.MvoChangeTracking,
    category: 'ChangeTracking',
    valueType: SettingValueType.Boolean,
    defaultValue: true,
    description: 'Record a change history for metaverse objects.',
  },
  {
    key: SettingKeys.MaintenanceEnabled,
    category: 'Maintenance',
    valueType: SettingValueType.Boolean,
    defaultValue: false,
    description: 'Maintenance mode: /health/ready reports not_ready and schedules do not fire.',
  },
  {
    key: SettingKeys.AuthenticatedRateLimit,
    category: 'Security',
    valueType: SettingValueType.Integer,
    defaultValue: 600,
    minimum: 1,
    maximum: 1_000_000,
    description: 'Requests per minute allowed for each authenticated caller signed in with a bearer token.',
  },
  {
    key: SettingKeys.ApiKeyRateLimit,
    category: 'Security',
    valueType: SettingValueType.Integer,
    defaultValue: 6000,
    minimum: 1,
    maximum: 1_000_000,
    description: 'Requests per minute allowed for each API key (automation), counted per key.',
  },
  {
    key: SettingKeys.UnauthenticatedRateLimit,
    category: 'Security',
    valueType: SettingValueType.Integer,
    defaultValue: 60,
    minimum: 1,
    maximum: 1_000_000,
    description: 'Requests per minute allowed for each client address without credentials.',
  },
  {
    key: SettingKeys.ExportMaxRetries,
    category: 'Export',
    valueType: SettingValueType.Integer,
    defaultValue: 5,
    minimum: 0,
    maximum: 100,
    description: 'Attempts of a failing pending export before it is marked Failed.',
  },
  {
    key: SettingKeys.WorkerStaleTaskTimeout,
    category: 'Worker',
    valueType: SettingValueType.TimeSpan,
    defaultValue: '00:05:00',
    minimumMs: 30_000,
    maximumMs: DAY,
    description: 'A run whose worker has not reported for this long is failed and its locks released.',
  },
  {
    key: SettingKeys.LoggingMinimumLevel,
    category: 'Logging',
    valueType: SettingValueType.Enum,
    defaultValue: 'Information',
    allowedValues: LOG_LEVEL_NAMES,
    description: 'The lowest level written to the service logs.',
  },
  {
    key: SettingKeys.LoggingDirectory,
    category: 'Logging',
    valueType: SettingValueType.String,
    defaultValue: '',
    readOnly: true,
    description: 'Where the services write their log files (MERIDIAN_LOG_DIR).',
  },
  {
    key: SettingKeys.SsoAuthority,
    category: 'Security',
    valueType: SettingValueType.String,
    defaultValue: '',
    readOnly: true,
    description: 'The OpenID Connect authority used for sign-in (OIDC_AUTHORITY); empty when single sign-on is off.',
  },
];

const BY_KEY = new Map(SETTING_DEFINITIONS.map((d) => [d.key.toLowerCase(), d]));

/** Finds a setting definition by key, case-insensitively. */
export function findSettingDefinition(key: string): SettingDefinition | undefined {
  return BY_KEY.get(key.toLowerCase());
}

/**
 * Validates a value supplied by a caller for a setting and returns its canonical form
 * (integers as numbers, timespans normalised to `d.hh:mm:ss`). Throws VALIDATION_ERROR on `value`.
 */
export function validateSettingValue(def: SettingDefinition, value: unknown): SettingValue {
  const fail = (message: string): never => {
    throw DomainError.validation('value', `${def.key}: ${message}`);
  };
  if (value === null || value === undefined) fail('a value is required (DELETE reverts to the default).');
  switch (def.valueType) {
    case SettingValueType.Boolean:
      if (typeof value !== 'boolean') fail('must be true or false.');
      return value as boolean;
    case SettingValueType.Integer: {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail('must be a whole number.');
      const n = value as number;
      if (def.minimum !== undefined && n < def.minimum) fail(`must be at least ${def.minimum}.`);
      if (def.maximum !== undefined && n > def.maximum) fail(`must be at most ${def.maximum}.`);
      return n;
    }
    case SettingValueType.TimeSpan: {
      if (typeof value !== 'string') fail('must be a timespan string such as "00:05:00" or "90.00:00:00".');
      const ms = parseTimeSpan(value as string);
      if (ms === null) return fail('must be a timespan string such as "00:05:00" or "90.00:00:00".');
      if (def.minimumMs !== undefined && ms < def.minimumMs) fail(`must be at least ${formatTimeSpan(def.minimumMs)}.`);
      if (def.maximumMs !== undefined && ms > def.maximumMs) fail(`must be at most ${formatTimeSpan(def.maximumMs)}.`);
      return formatTimeSpan(ms);
    }
    case SettingValueType.Enum: {
      const allowed = def.allowedValues ?? [];
      const match = typeof value === 'string' ? allowed.find((a) => a.toLowerCase() === value.toLowerCase()) : undefined;
      if (!match) fail(`must be one of ${allowed.join(', ')}.`);
      return match as string;
    }
    case SettingValueType.String:
      if (typeof value !== 'string') fail('must be a string.');
      if ((value as string).length > 4000) fail('must be at most 4000 characters.');
      return value as string;
  }
}

/** Serialises a canonical value for storage. */
export function encodeSettingValue(value: SettingValue): string {
  return JSON.stringify(value);
}

/** Reads a stored value back; a value that no longer validates falls back to the default. */
export function decodeSettingValue(def: SettingDefinition, stored: string | null | undefined): SettingValue {
  if (stored === null || stored === undefined) return def.defaultValue;
  try {
    return validateSettingValue(def, JSON.parse(stored));
  } catch {
    return def.defaultValue;
  }
}
