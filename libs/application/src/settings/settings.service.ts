import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  decodeSettingValue,
  DomainError,
  encodeSettingValue,
  findSettingDefinition,
  SETTING_DEFINITIONS,
  SettingDefinition,
  SettingKeys,
  SettingValue,
  validateSettingValue,
} from '@meridian/domain';
import { ServiceSettingEntity } from '@meridian/persistence';
import { APP_CONFIG, AppConfig, RateLimitPolicy } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';

export interface SettingView {
  key: string;
  category: string;
  description: string;
  valueType: string;
  defaultValue: SettingValue;
  value: SettingValue | null;
  effectiveValue: SettingValue;
  isReadOnly: boolean;
  isDefault: boolean;
  allowedValues: readonly string[] | null;
  minimum: number | null;
  maximum: number | null;
  lastUpdated: string | null;
  lastUpdatedBy: string | null;
}

const CACHE_MS = 5_000;

/** Service settings (DOMAIN.md §6): typed, validated, read-only where they reflect the environment. */
@Injectable()
export class SettingsService extends RateLimitPolicy implements OnModuleDestroy {
  private cache = new Map<string, SettingValue>();
  private cacheLoadedAt = 0;
  private refreshing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly activities: ActivitiesService,
  ) {
    super();
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), CACHE_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async list(): Promise<SettingView[]> {
    const rows = await this.ds.getRepository(ServiceSettingEntity).find();
    const byKey = new Map(rows.map((r) => [r.key, r]));
    return SETTING_DEFINITIONS.map((d) => this.view(d, byKey.get(d.key)));
  }

  async get(key: string): Promise<SettingView> {
    const def = this.definition(key);
    return this.view(def, await this.ds.getRepository(ServiceSettingEntity).findOneBy({ key: def.key }));
  }

  async set(key: string, value: unknown, initiator: Initiator): Promise<SettingView> {
    const def = this.definition(key);
    if (def.readOnly) throw DomainError.badRequest(`${def.key} is read-only: it reflects the service's environment configuration.`);
    const canonical = validateSettingValue(def, value);
    const before = await this.effective(def.key);
    await this.ds.transaction(async (m) => {
      await m
        .getRepository(ServiceSettingEntity)
        .save({ key: def.key, value: encodeSettingValue(canonical), lastUpdated: new Date(), lastUpdatedBy: initiator.name });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.ServiceSetting,
          operation: ActivityOperationType.Update,
          targetId: def.key,
          targetName: def.key,
          message: `${def.key} set to ${String(canonical)}.`,
          details: { previousValue: before, value: canonical },
        },
        m,
      );
    });
    this.cache.set(def.key, canonical);
    return this.get(def.key);
  }

  async revert(key: string, initiator: Initiator): Promise<SettingView> {
    const def = this.definition(key);
    if (def.readOnly) throw DomainError.badRequest(`${def.key} is read-only: it reflects the service's environment configuration.`);
    const before = await this.effective(def.key);
    await this.ds.transaction(async (m) => {
      await m.getRepository(ServiceSettingEntity).delete({ key: def.key });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.ServiceSetting,
          operation: ActivityOperationType.Revert,
          targetId: def.key,
          targetName: def.key,
          message: `${def.key} reverted to its default (${String(def.defaultValue)}).`,
          details: { previousValue: before, value: def.defaultValue },
        },
        m,
      );
    });
    this.cache.delete(def.key);
    return this.get(def.key);
  }

  /** The current value read from the database (not cached): for decisions that must be exact. */
  async effective(key: string): Promise<SettingValue> {
    const def = this.definition(key);
    if (def.readOnly) return this.environmentValue(def);
    const row = await this.ds.getRepository(ServiceSettingEntity).findOneBy({ key: def.key });
    return decodeSettingValue(def, row?.value);
  }

  /** Which change records runs write (ChangeTracking.CsoChanges.Enabled, ChangeTracking.MvoChanges.Enabled), read as a run starts. */
  async changeTracking(): Promise<{ cso: boolean; mvo: boolean }> {
    const [cso, mvo] = await Promise.all([this.effective(SettingKeys.CsoChangeTracking), this.effective(SettingKeys.MvoChangeTracking)]);
    return { cso: cso === true, mvo: mvo === true };
  }

  /** The value from a cache refreshed every few seconds: for hot paths such as rate limiting. */
  cached(key: string): SettingValue {
    const def = this.definition(key);
    if (Date.now() - this.cacheLoadedAt > CACHE_MS) void this.refresh().catch(() => undefined);
    return this.cache.get(def.key) ?? (def.readOnly ? this.environmentValue(def) : def.defaultValue);
  }

  authenticatedPerMinute(): number {
    return this.cached(SettingKeys.AuthenticatedRateLimit) as number;
  }

  apiKeyPerMinute(): number {
    return this.cached(SettingKeys.ApiKeyRateLimit) as number;
  }

  unauthenticatedPerMinute(): number {
    return this.cached(SettingKeys.UnauthenticatedRateLimit) as number;
  }

  async refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const rows = await this.ds.getRepository(ServiceSettingEntity).find();
        const next = new Map<string, SettingValue>();
        for (const r of rows) {
          const def = findSettingDefinition(r.key);
          if (def && !def.readOnly) next.set(def.key, decodeSettingValue(def, r.value));
        }
        this.cache = next;
        this.cacheLoadedAt = Date.now();
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private definition(key: string): SettingDefinition {
    const def = findSettingDefinition(key);
    if (!def) throw DomainError.notFound('Service setting', key);
    return def;
  }

  private environmentValue(def: SettingDefinition): SettingValue {
    if (def.key === SettingKeys.LoggingDirectory) return this.config.logDir;
    if (def.key === SettingKeys.SsoAuthority) return this.config.oidc?.authority ?? '';
    return def.defaultValue;
  }

  private view(def: SettingDefinition, row: ServiceSettingEntity | null | undefined): SettingView {
    const value = def.readOnly ? this.environmentValue(def) : row ? decodeSettingValue(def, row.value) : null;
    return {
      key: def.key,
      category: def.category,
      description: def.description,
      valueType: def.valueType,
      defaultValue: def.defaultValue,
      value,
      effectiveValue: value ?? def.defaultValue,
      isReadOnly: !!def.readOnly,
      isDefault: value === null,
      allowedValues: def.allowedValues ?? null,
      minimum: def.minimum ?? null,
      maximum: def.maximum ?? null,
      lastUpdated: row?.lastUpdated.toISOString() ?? null,
      lastUpdatedBy: row?.lastUpdatedBy ?? null,
    };
  }
}
