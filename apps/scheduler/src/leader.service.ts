import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Logger, LOGGER } from '@meridian/platform';
import { Client } from 'pg';

/** The advisory-lock key every scheduler replica competes for. */
export const SCHEDULER_LEADER_LOCK = 0x4d455244; // "MERD"

/**
 * Leader election: the replica holding a PostgreSQL session advisory lock on a dedicated connection is
 * the leader. Losing the connection loses the lock; the replica then reconnects and competes again.
 */
@Injectable()
export class LeaderService implements OnApplicationBootstrap, OnModuleDestroy {
  private client: Client | null = null;
  private leader = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners: Array<(leader: boolean) => void> = [];
  /** How often a follower retries and a leader verifies its connection. */
  intervalMs = 2000;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  get isLeader(): boolean {
    return this.leader;
  }

  onChange(listener: (leader: boolean) => void): void {
    this.listeners.push(listener);
  }

  onApplicationBootstrap(): void {
    void this.tick();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.dropConnection();
  }

  private schedule(): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.intervalMs);
  }

  private async tick(): Promise<void> {
    try {
      if (!this.client) {
        const client = new Client({
          connectionString: this.config.databaseUrl,
          application_name: 'meridian-scheduler-leader',
          connectionTimeoutMillis: 5000,
        });
        client.on('error', (e) => {
          this.logger.log({ level: 'warning', message: `Leader connection lost: ${e.message}` });
          void this.dropConnection();
        });
        await client.connect();
        this.client = client;
      }
      if (this.leader) {
        await this.client.query('SELECT 1');
      } else {
        const { rows } = await this.client.query('SELECT pg_try_advisory_lock($1) AS acquired', [SCHEDULER_LEADER_LOCK]);
        if (rows[0].acquired) this.setLeader(true);
      }
    } catch (e) {
      this.logger.log({ level: 'warning', message: `Leader election check failed: ${(e as Error).message}` });
      await this.dropConnection();
    }
    this.schedule();
  }

  private async dropConnection(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.setLeader(false);
    if (client) await client.end().catch(() => undefined);
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
