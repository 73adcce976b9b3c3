import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { JobQueue } from '@meridian/jobs';
import { Logger, LOGGER } from '@meridian/platform';

/**
 * Registers the repeatable jobs (housekeeping, the daily history cleanup) when a worker starts, and again
 * whenever its queue connection comes back after an error: Redis may have returned empty (nothing in it
 * is the only copy of anything), and registering is idempotent across workers.
 */
@Injectable()
export class HousekeepingScheduler implements OnApplicationBootstrap {
  private lostConnection = false;

  constructor(
    private readonly jobs: JobQueue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.jobs.onConnection({
      error: () => {
        this.lostConnection = true;
      },
      ready: () => {
        if (!this.lostConnection) return;
        this.lostConnection = false;
        void this.schedule();
      },
    });
    await this.schedule();
  }

  private async schedule(): Promise<void> {
    try {
      await this.jobs.scheduleHousekeeping();
    } catch (e) {
      this.logger.log({
        level: 'warning',
        message: `Housekeeping could not be scheduled yet: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
  }
}
