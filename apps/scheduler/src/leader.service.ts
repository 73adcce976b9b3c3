import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { LeaderLockStore } from '@meridian/persistence';
import { Dependency } from '@meridian/domain';
import { APP_CONFIG, AppConfig, classifyDependencyError, DependencyOutages, failureSummary, Logger, LOGGER } from '@meridian/platform';
import { SCHEDULER_OPTIONS, SchedulerOptions } from './scheduler.options';

/** The advisory-lock key every scheduler replica competes for. */
export const SCHEDULER_LEADER_LOCK = 0x4d455244; // "MERD"
const DEFAULT_LEADER_INTERVAL_MS = 2000;

/**
 * Leader election: the replica holding a PostgreSQL session advisory lock on a dedicated connection is
 * the leader. Losing the connection loses the lock; the replica then reconnects and competes again.
 */
@Injectable()
export class LeaderService implements OnApplicationBootstrap, OnModuleDestroy {
  private lock: LeaderLockStore | null = null;
  private leader = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  /** The election check in progress, awaited on shutdown so no connection (or lock) outlives the process's modules. */
  private inFlight: Promise<void> = Promise.resolve();
  private readonly listeners: Array<(leader: boolean) => void> = [];
  /** How often a follower retries and a leader verifies its connection. */
  private readonly intervalMs: number;
  private readonly outages: DependencyOutages;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SCHEDULER_OPTIONS) options: SchedulerOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.intervalMs = options.leaderIntervalMs ?? DEFAULT_LEADER_INTERVAL_MS;
    this.outages = DependencyOutages.of(logger);
  }

  get isLeader(): boolean {
    return this.leader;
  }

  onChange(listener: (leader: boolean) => void): void {
    this.listeners.push(listener);
  }

  onApplicationBootstrap(): void {
    this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight;
    const held = this.leader;
    await this.dropConnection();
    this.logger.log({ level: 'information', message: held ? 'Leader lock released.' : 'Leader election connection closed.' });
  }

  private run(): void {
    this.inFlight = this.tick();
  }

  private schedule(): void {
    if (!this.stopped) this.timer = setTimeout(() => this.run(), this.intervalMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const started = Date.now();
    try {
      this.lock ??= await LeaderLockStore.connect(this.config.databaseUrl, (e) => {
        this.report('Leader connection lost', e);
        void this.dropConnection();
      });
      if (this.leader) await this.lock.verify();
      else if (await this.lock.tryAcquire(SCHEDULER_LEADER_LOCK)) this.setLeader(true);
      this.outages.available(Dependency.Database, started, 'leader connection');
    } catch (e) {
      if (!this.stopped) this.report('Leader election check failed', e);
      await this.dropConnection();
    }
    this.schedule();
  }

  /** A database outage is one warning for the process (DependencyOutages), not one every interval. */
  private report(what: string, e: Error | unknown): void {
    if (classifyDependencyError(e) === Dependency.Database)
      this.outages.unavailable(Dependency.Database, failureSummary(e), 'scheduler leader election', 'leader connection');
    else this.logger.log({ level: 'warning', message: `${what}: ${failureSummary(e)}` });
  }

  private async dropConnection(): Promise<void> {
    const lock = this.lock;
    this.lock = null;
    this.setLeader(false);
    await lock?.close();
  }

  private setLeader(leader: boolean): void {
    if (leader === this.leader) return;
    this.leader = leader;
    this.logger.log({
      level: 'information',
      message: leader ? 'This scheduler is now the leader.' : 'This scheduler is no longer the leader.',
    });
    for (const l of this.listeners) l(leader);
  }
}
