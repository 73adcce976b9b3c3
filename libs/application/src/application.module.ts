import { DynamicModule, Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobQueue, JobsModule } from '@meridian/jobs';
import { dataSourceOptions } from '@meridian/persistence';
import { AppConfig, Logger, LOGGER, PrincipalResolver, RateLimitPolicy } from '@meridian/platform';
import { ActivitiesService } from './activities/activities.service';
import { ApiKeysService } from './api-keys/api-keys.service';
import { DatabasePrincipalResolver } from './auth/principal-resolver.service';
import { ReadinessService } from './health/readiness.service';
import { LogReaderService } from './logs/log-reader.service';
import { MetaverseObjectsWriter } from './metaverse/metaverse-objects.writer';
import { QueueProbesService } from './probes/queue-probes.service';
import { RolesService } from './roles/roles.service';
import { LogLevelFollower } from './settings/log-level.follower';
import { SettingsService } from './settings/settings.service';

const SERVICES = [ActivitiesService, ApiKeysService, SettingsService, ReadinessService, QueueProbesService, RolesService, MetaverseObjectsWriter, LogReaderService];

/** Writes Redis connection problems to the service log (throttled by the queue). */
@Injectable()
class QueueErrorLogger implements OnModuleInit {
  constructor(private readonly jobs: JobQueue, @Inject(LOGGER) private readonly logger: Logger) {}

  onModuleInit(): void {
    this.jobs.onError((error) => this.logger.log({ level: 'warning', message: `Job queue connection problem: ${error.message}` }));
  }
}

/** Use cases over persistence and jobs; every app imports this once with its configuration. */
@Module({})
export class ApplicationModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ApplicationModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({ ...dataSourceOptions(config.databaseUrl, `meridian-${config.service}`), retryAttempts: 3, retryDelay: 1000 }),
        JobsModule.forRoot({ redisUrl: config.redisUrl, prefix: config.redisPrefix, worker: config.service === 'worker' }),
      ],
      providers: [
        ...SERVICES,
        DatabasePrincipalResolver,
        QueueErrorLogger,
        LogLevelFollower,
        { provide: PrincipalResolver, useExisting: DatabasePrincipalResolver },
        { provide: RateLimitPolicy, useExisting: SettingsService },
      ],
      exports: [...SERVICES, PrincipalResolver, RateLimitPolicy, LogLevelFollower],
    };
  }
}
