import { DynamicModule, Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobQueue, JobsModule } from '@meridian/jobs';
import { dataSourceOptions } from '@meridian/persistence';
import { builtInConnectors, ConnectorRegistry } from '@meridian/connectors';
import { AppConfig, Logger, LOGGER, PrincipalResolver, RateLimitPolicy, SecretBox } from '@meridian/platform';
import { CERTIFICATES_PROVIDERS } from './certificates';
import { CONNECTED_SYSTEMS_PROVIDERS } from './connected-systems';
import { METAVERSE_PROVIDERS } from './metaverse';
import { SCHEDULE_ENGINE_OPTIONS, ScheduleEngineOptions, scheduleEngineOptions, SCHEDULES_PROVIDERS } from './schedules';
import { SYNC_RULES_PROVIDERS } from './sync-rules';
import { ENGINE_PROVIDERS } from './engine';
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

const SERVICES = [
  ActivitiesService,
  ActivityRunStatsQuery,
  ApiKeysService,
  SettingsService,
  ReadinessService,
  QueueProbesService,
  RolesService,
  LogReaderService,
];
const AREAS = [
  ...METAVERSE_PROVIDERS,
  ...CONNECTED_SYSTEMS_PROVIDERS,
  ...SYNC_RULES_PROVIDERS,
  ...CERTIFICATES_PROVIDERS,
  ...SCHEDULES_PROVIDERS,
  ...ENGINE_PROVIDERS,
];

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

/** Tuning an app gives the use cases (defaults otherwise). */
export interface ApplicationOptions {
  scheduleEngine?: Partial<ScheduleEngineOptions>;
}

/** Use cases over persistence and jobs; every app imports this once with its configuration. */
@Module({})
export class ApplicationModule {
  static forRoot(config: AppConfig, options: ApplicationOptions = {}): DynamicModule {
    return {
      module: ApplicationModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.databaseUrl, `meridian-${config.service}`),
          retryAttempts: 3,
          retryDelay: 1000,
        }),
        JobsModule.forRoot({ redisUrl: config.redisUrl, prefix: config.redisPrefix, worker: config.service === 'worker' }),
      ],
      providers: [
        ...SERVICES,
        ...AREAS,
        SecretBox,
        { provide: ConnectorRegistry, useFactory: () => new ConnectorRegistry(builtInConnectors()) },
        DatabasePrincipalResolver,
        QueueErrorLogger,
        LogLevelFollower,
        { provide: PrincipalResolver, useExisting: DatabasePrincipalResolver },
        { provide: RateLimitPolicy, useExisting: SettingsService },
        { provide: SCHEDULE_ENGINE_OPTIONS, useValue: scheduleEngineOptions(options.scheduleEngine) },
      ],
      exports: [...SERVICES, ...AREAS, SecretBox, ConnectorRegistry, PrincipalResolver, RateLimitPolicy, LogLevelFollower],
    };
  }
}
