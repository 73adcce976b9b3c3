import { DynamicModule, Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobQueue, JobsModule } from '@meridian/jobs';
import { dataSourceOptions } from '@meridian/persistence';
import { builtInConnectors, ConnectorRegistry } from '@meridian/connectors';
import { AppConfig, Logger, LOGGER, PrincipalResolver, RateLimitPolicy, SecretBox } from '@meridian/platform';
import { ActivitiesService } from './activities/activities.service';
import { ActivityRunStatsQuery } from './activities/activity-run-stats.query';
import { ApiKeysService } from './api-keys/api-keys.service';
import { DatabasePrincipalResolver } from './auth/principal-resolver.service';
import { ReadinessService } from './health/readiness.service';
import { LogReaderService } from './logs/log-reader.service';
import { QueueProbesService } from './probes/queue-probes.service';
import { RolesService } from './roles/roles.service';
import { LogLevelFollower } from './settings/log-level.follower';
import { SettingsService } from './settings/settings.service';

/** Writes Redis connection problems to the service log (throttled by the queue). */
@Injectable()
class QueueErrorLogger implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.jobs.onError((error) => this.logger.log({ level: 'warning', message: `Job queue connection problem: ${error.message}` }));
  }
}

const CORE = [ActivitiesService, SettingsService, LogLevelFollower, SecretBox];

/**
 * What every process needs: the database, the job queue, the connectors, secrets, the activity log and
 * service settings (every area records activities and reads settings). Each app imports this once with
 * its configuration, then the area modules of what it runs (docs/architecture.md, "Modules per process").
 */
@Module({})
export class ApplicationCoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ApplicationCoreModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.databaseUrl, `meridian-${config.service}`),
          retryAttempts: 3,
          retryDelay: 1000,
        }),
        JobsModule.forRoot({ redisUrl: config.redisUrl, prefix: config.redisPrefix, worker: config.service === 'worker' }),
      ],
      providers: [...CORE, QueueErrorLogger, { provide: ConnectorRegistry, useFactory: () => new ConnectorRegistry(builtInConnectors()) }],
      exports: [...CORE, ConnectorRegistry],
    };
  }
}

const ACCESS = [ApiKeysService, RolesService, DatabasePrincipalResolver];

/** Who may call the API: API keys, roles, the principal behind a request and the rate-limit policy. */
@Module({
  providers: [
    ...ACCESS,
    { provide: PrincipalResolver, useExisting: DatabasePrincipalResolver },
    { provide: RateLimitPolicy, useExisting: SettingsService },
  ],
  exports: [...ACCESS, PrincipalResolver, RateLimitPolicy],
})
export class AccessModule {}

const OPERATIONS = [ReadinessService, LogReaderService, ActivityRunStatsQuery];

/** What operators read: readiness, the service logs and activity statistics. */
@Module({ providers: OPERATIONS, exports: OPERATIONS })
export class OperationsModule {}

/** Queue probes: written by the API, answered by a worker. */
@Module({ providers: [QueueProbesService], exports: [QueueProbesService] })
export class QueueProbesModule {}
