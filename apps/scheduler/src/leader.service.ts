import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { LeaderLockStore } from '@meridian/persistence';
import { APP_CONFIG, AppConfig, Logger, LOGGER } from '@meridian/platform';
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

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SCHEDULER_OPTIONS) options: SchedulerOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.intervalMs = options.leaderIntervalMs ?? DEFAULT_LEADER_INTERVAL_MS;
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
    await this.dropConnection();
  }

  private run(): void {
    this.inFlight = this.tick();
  }

  private schedule(): void {
    if (!this.stopped) this.timer = setTimeout(() => this.run(), this.intervalMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      this.lock ??= await LeaderLockStore.connect(this.config.databaseUrl, (e) => {
        this.logger.log({ level: 'warning', message: `Leader connection lost: ${e.message}` });
        void this.dropConnection();
      });
      if (this.leader) await this.lock.verify();
      else if (await this.lock.tryAcquire(SCHEDULER_LEADER_LOCK)) this.setLeader(true);
    } catch (e) {
      if (!this.stopped) this.logger.log({ level: 'warning', message: `Leader election check failed: ${(e as Error).message}` });
      await this.dropConnection();
    }
    this.schedule();
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
