import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { JobQueue } from '@meridian/jobs';
import { Logger, LOGGER } from '@meridian/platform';

/** Registers the repeatable jobs (housekeeping, the daily history cleanup) when a worker starts (idempotent across workers). */
@Injectable()
export class HousekeepingScheduler implements OnApplicationBootstrap {
  constructor(
    private readonly jobs: JobQueue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
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
