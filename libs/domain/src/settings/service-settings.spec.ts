import { DomainError } from '../errors/domain-error';
import {
  decodeSettingValue,
  encodeSettingValue,
  findSettingDefinition,
  SETTING_DEFINITIONS,
  SettingKeys,
  validateSettingValue,
} from './service-settings';

const def = (key: string) => {
  const d = findSettingDefinition(key);
  if (!d) throw new Error(`no ${key}`);
  return d;
};

describe('service settings', () => {
  it('has the initial set of DOMAIN.md §6 with their defaults', () => {
    expect(def('Sync.PageSize').defaultValue).toBe(1000);
    expect(def('History.RetentionPeriod').defaultValue).toBe('90.00:00:00');
    expect(def('Maintenance.IsEnabled').defaultValue).toBe(false);
    expect(def('Worker.StaleTaskTimeout').defaultValue).toBe('00:05:00');
    expect(def('Export.MaxRetries').defaultValue).toBe(5);
    expect(new Set(SETTING_DEFINITIONS.map((d) => d.key)).size).toBe(SETTING_DEFINITIONS.length);
  });

  it('finds keys case-insensitively', () => {
    expect(findSettingDefinition('sync.pagesize')?.key).toBe('Sync.PageSize');
    expect(findSettingDefinition('nope')).toBeUndefined();
  });

  it.each([
    [SettingKeys.SyncPageSize, 500, 500],
    [SettingKeys.MaintenanceEnabled, true, true],
    [SettingKeys.HistoryRetentionPeriod, '30.00:00:00', '30.00:00:00'],
    [SettingKeys.WorkerStaleTaskTimeout, '0:10:00', '00:10:00'],
    [SettingKeys.LoggingMinimumLevel, 'debug', 'Debug'],
  ])('accepts %s = %p', (key, value, canonical) => {
    expect(validateSettingValue(def(key), value)).toBe(canonical);
  });

  it.each([
    [SettingKeys.SyncPageSize, 0],
    [SettingKeys.SyncPageSize, 10_001],
    [SettingKeys.SyncPageSize, 1.5],
    [SettingKeys.SyncPageSize, '1000'],
    [SettingKeys.MaintenanceEnabled, 'true'],
    [SettingKeys.HistoryRetentionPeriod, '12:00:00'],
    [SettingKeys.HistoryRetentionPeriod, 'ninety days'],
    [SettingKeys.LoggingMinimumLevel, 'Chatty'],
    [SettingKeys.SyncPageSize, null],
  ])('rejects %s = %p with a VALIDATION_ERROR on value', (key, value) => {
    try {
      validateSettingValue(def(key), value);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).validationErrors?.value?.[0]).toContain(key);
    }
  });

  it('round-trips through storage and falls back to the default for a corrupt value', () => {
    const d = def(SettingKeys.SyncPageSize);
    expect(decodeSettingValue(d, encodeSettingValue(250))).toBe(250);
    expect(decodeSettingValue(d, null)).toBe(1000);
    expect(decodeSettingValue(d, '{bad')).toBe(1000);
    expect(decodeSettingValue(d, '0')).toBe(1000);
  });
});
