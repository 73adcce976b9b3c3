import { Injectable } from '@nestjs/common';
import { HousekeepingService } from '@meridian/application';
import { JobName, JobPayloads } from '@meridian/jobs';
import { JobHandler } from './job-handler';

/** Repeatable maintenance: reaps runs of dead workers, deletes metaverse objects whose grace period passed. */
@Injectable()
export class HousekeepingHandler implements JobHandler<JobName.Housekeeping> {
  readonly name = JobName.Housekeeping;

  constructor(private readonly housekeeping: HousekeepingService) {}

  async handle(_payload: JobPayloads[JobName.Housekeeping]): Promise<unknown> {
    return this.housekeeping.run();
  }
}
