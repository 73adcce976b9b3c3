import { Injectable } from '@nestjs/common';
import { HistoryCleanupService, HOUSEKEEPING_INITIATOR } from '@meridian/application';
import { JobName, JobPayloads } from '@meridian/jobs';
import { JobHandler } from './job-handler';

/** The daily history retention cleanup, attributed to System "Housekeeping". */
@Injectable()
export class HistoryCleanupHandler implements JobHandler<JobName.HistoryCleanup> {
  readonly name = JobName.HistoryCleanup;

  constructor(private readonly history: HistoryCleanupService) {}

  async handle(_payload: JobPayloads[JobName.HistoryCleanup]): Promise<unknown> {
    return this.history.cleanup(HOUSEKEEPING_INITIATOR);
  }
}
