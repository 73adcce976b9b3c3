import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Dependency, SettingKeys } from '@meridian/domain';
import { JobQueue } from '@meridian/jobs';
import { pendingMigrations, pingDatabase } from '@meridian/persistence';
import { DependencyOutages, failureSummary, Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { SettingsService } from '../settings/settings.service';

export interface Readiness {
  ready: boolean;
  reasons: string[];
  checks: Record<string, 'ok' | 'failed' | 'skipped'>;
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness: database reachable, migrations applied, Redis reachable, maintenance mode off. What it finds
 * about PostgreSQL and Redis also starts or ends their outage in the log (DependencyOutages).
 */
@Injectable()
export class ReadinessService {
  private readonly outages: DependencyOutages;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly jobs: JobQueue,
    private readonly settings: SettingsService,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.outages = DependencyOutages.of(logger);
  }

  async check(): Promise<Readiness> {
    const started = Date.now();
    const reasons: string[] = [];
    const checks: Readiness['checks'] = { database: 'skipped', migrations: 'skipped', redis: 'skipped', maintenance: 'skipped' };
    try {
      await withTimeout(pingDatabase(this.ds), 2000, 'PostgreSQL');
      checks.database = 'ok';
      this.outages.available(Dependency.Database, started);
    } catch (e) {
      checks.database = 'failed';
      reasons.push(`database unreachable: ${(e as Error).message}`);
      this.outages.unavailable(Dependency.Database, failureSummary(e), 'readiness check');
    }
    if (checks.database === 'ok') {
      try {
        const pending = await pendingMigrations(this.ds);
        checks.migrations = pending.length ? 'failed' : 'ok';
        if (pending.length) reasons.push(`migrations pending: ${pending.join(', ')} (run "npm run migrate")`);
      } catch (e) {
        checks.migrations = 'failed';
        reasons.push(`migrations could not be checked: ${(e as Error).message}`);
      }
      if (checks.migrations === 'ok') {
        const maintenance = await this.settings.effective(SettingKeys.MaintenanceEnabled).catch(() => false);
        checks.maintenance = maintenance ? 'failed' : 'ok';
        if (maintenance) reasons.push('maintenance mode is on');
      }
    }
    try {
      await this.jobs.ping(2000);
      checks.redis = 'ok';
      this.outages.available(Dependency.Queue, started);
    } catch (e) {
      checks.redis = 'failed';
      reasons.push(`redis unreachable: ${(e as Error).message}`);
      this.outages.unavailable(Dependency.Queue, failureSummary(e), 'readiness check');
    }
    return { ready: reasons.length === 0, reasons, checks };
  }
}
