import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { Dependency } from '@meridian/domain';
import { JobQueue, JobsModule, REDIS_MAX_RECONNECT_DELAY_MS } from '@meridian/jobs';
import { dataSourceOptions } from '@meridian/persistence';
import { builtInConnectors, ConnectorRegistry } from '@meridian/connectors';
import {
  AppConfig,
  classifyDependencyError,
  DependencyOutages,
  failureSummary,
  Logger,
  LOGGER,
  PrincipalResolver,
  RateLimitPolicy,
  SecretBox,
} from '@meridian/platform';
import { DataSource } from 'typeorm';
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

interface PoolEvents {
  on(event: 'connect', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Watches the process's connections to PostgreSQL and Redis: a lost connection starts an outage (one
 * warning), a new one ends it (one information line) — DependencyOutages. On shutdown it closes the job
 * queue's connections and the database pool, and says so.
 */
@Injectable()
class DependencyConnections implements OnModuleInit, OnApplicationShutdown {
  private readonly outages: DependencyOutages;
  /** Ends of queue outages waiting for the other connections to reconnect (see onModuleInit). */
  private readonly recoveries = new Set<NodeJS.Timeout>();
  /**
   * Shutdown has begun: connections that fail from now on were being closed (a pool's client can still
   * receive the server's goodbye after the pool ended), which is no outage — and the logger may be closed.
   */
  private closing = false;

  constructor(
    private readonly jobs: JobQueue,
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.outages = DependencyOutages.of(logger);
  }

  onModuleInit(): void {
    this.jobs.onConnection({
      error: (queue, error) => {
        if (this.closing) return;
        if (classifyDependencyError(error))
          this.outages.unavailable(Dependency.Queue, failureSummary(error), 'queue connection', `queue:${queue}`);
        else this.logger.log({ level: 'warning', message: `Job queue ${queue}: ${failureSummary(error)}` });
      },
      // The queues' connections come back one by one, each within the reconnection delay: the outage ends
      // that long after a connection is back, so a queue still reconnecting fails its next request inside
      // this outage instead of starting another one.
      ready: (queue) => {
        if (this.closing) return;
        const at = Date.now();
        const timer = setTimeout(() => {
          this.recoveries.delete(timer);
          this.outages.available(Dependency.Queue, at, `queue:${queue}`);
        }, REDIS_MAX_RECONNECT_DELAY_MS);
        timer.unref();
        this.recoveries.add(timer);
      },
    });
    const pool = (this.ds.driver as { master?: Partial<PoolEvents> }).master;
    if (typeof pool?.on === 'function') {
      pool.on('connect', () => {
        if (!this.closing) this.outages.available(Dependency.Database, Date.now(), 'pool');
      });
      // Stays attached after shutdown: a pool with no 'error' listener would throw the error instead.
      pool.on('error', (error: Error) => {
        if (!this.closing) this.outages.unavailable(Dependency.Database, failureSummary(error), 'idle pool connection', 'pool');
      });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    for (const timer of this.recoveries) clearTimeout(timer);
    this.recoveries.clear();
    await this.jobs
      .close()
      .catch((e: unknown) => this.logger.log({ level: 'warning', message: `Closing the job queue: ${failureSummary(e)}` }));
    this.logger.log({ level: 'information', message: 'Job queue connections closed.' });
    if (this.ds.isInitialized) {
      await this.ds
        .destroy()
        .catch((e: unknown) => this.logger.log({ level: 'warning', message: `Closing the database pool: ${failureSummary(e)}` }));
    }
    this.logger.log({ level: 'information', message: 'Database pool closed.' });
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
      providers: [
        ...CORE,
        DependencyConnections,
        { provide: ConnectorRegistry, useFactory: () => new ConnectorRegistry(builtInConnectors()) },
      ],
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
