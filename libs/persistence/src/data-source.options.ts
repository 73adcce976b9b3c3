import { DataSourceOptions } from 'typeorm';
import { ActivityEntity, ActivityExecutionItemEntity } from './entities/activity.entity';
import { ApiKeyEntity } from './entities/api-key.entity';
import {
  MetaverseAttributeEntity,
  MetaverseObjectEntity,
  MetaverseObjectLookupEntity,
  MetaverseObjectTypeAttributeEntity,
  MetaverseObjectTypeEntity,
} from './entities/metaverse.entity';
import { QueueProbeEntity } from './entities/queue-probe.entity';
import { RoleEntity, RoleMemberEntity } from './entities/role.entity';
import { ServiceSettingEntity } from './entities/service-setting.entity';
import { Init1763800000000 } from './migrations/1763800000000-init';
import { ConfigurationModel1763900000000 } from './migrations/1763900000000-configuration-model';
import { Schedules1764000000000 } from './migrations/1764000000000-schedules';
import { ScheduleEntity, ScheduleExecutionEntity, ScheduleExecutionStepEntity, ScheduleStepEntity } from './entities/schedule.entity';
import { TrustedCertificateEntity } from './entities/certificate.entity';
import {
  ConnectedSystemAttributeEntity,
  ConnectedSystemEntity,
  ConnectedSystemObjectEntity,
  ConnectedSystemObjectTypeEntity,
  RunProfileEntity,
} from './entities/connected-system.entity';
import {
  SyncRuleEntity,
  SyncRuleMappingEntity,
  SyncRuleMappingSourceEntity,
  SyncRuleMatchingRuleEntity,
} from './entities/sync-rule.entity';
import { Engine1764100000000 } from './migrations/1764100000000-engine';
import { PendingExportEntity, RunLockEntity } from './entities/engine.entity';
import { ConnectedSystemObjectChangeEntity, MetaverseObjectChangeEntity } from './entities/history.entity';
import { History1764200000000 } from './migrations/1764200000000-history';
import { PendingDeletionExpiry1764300000000 } from './migrations/1764300000000-pending-deletion-expiry';
import { SnakeNamingStrategy } from './snake-naming.strategy';

/** Every entity, as classes (not globs) so the same options work from dist, the CLI and jest. */
export const ENTITIES = [
  ApiKeyEntity,
  RoleEntity,
  RoleMemberEntity,
  ServiceSettingEntity,
  ActivityEntity,
  ActivityExecutionItemEntity,
  MetaverseObjectTypeEntity,
  MetaverseAttributeEntity,
  MetaverseObjectTypeAttributeEntity,
  MetaverseObjectEntity,
  MetaverseObjectLookupEntity,
  QueueProbeEntity,
  ConnectedSystemEntity,
  ConnectedSystemObjectTypeEntity,
  ConnectedSystemAttributeEntity,
  RunProfileEntity,
  ConnectedSystemObjectEntity,
  SyncRuleEntity,
  SyncRuleMappingEntity,
  SyncRuleMappingSourceEntity,
  SyncRuleMatchingRuleEntity,
  TrustedCertificateEntity,
  ScheduleEntity,
  ScheduleStepEntity,
  ScheduleExecutionEntity,
  ScheduleExecutionStepEntity,
  PendingExportEntity,
  RunLockEntity,
  ConnectedSystemObjectChangeEntity,
  MetaverseObjectChangeEntity,
];

/** Migrations in order. Never `synchronize`. */
export const MIGRATIONS = [
  Init1763800000000,
  ConfigurationModel1763900000000,
  Schedules1764000000000,
  Engine1764100000000,
  History1764200000000,
  PendingDeletionExpiry1764300000000,
];

export function dataSourceOptions(databaseUrl: string, applicationName = 'meridian', poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migration',
    migrationsTransactionMode: 'each',
    synchronize: false,
    namingStrategy: new SnakeNamingStrategy(),
    applicationName,
    // JIT compilation is off: Meridian's statements are short and set-based, and a plan whose cost
    // estimate crosses the JIT thresholds (a join over a table that just grew) spends far longer
    // compiling than executing — measured 600 ms of compilation for a 10 ms statement, once per page.
    // Parallel query is off for the same reason: starting a parallel worker costs about 40 ms, and the
    // planner chose one for keyset pages of 1000 rows that take 10 ms alone (an export page read went from
    // 76 ms to 22 ms without it); on a machine of few cores the engine's second core is the worker anyway.
    extra: { max: poolSize, connectionTimeoutMillis: 5000, options: '-c jit=off -c max_parallel_workers_per_gather=0' },
  };
}
