import { Injectable } from '@nestjs/common';
import { JobName, JobPayloads } from '@meridian/jobs';
import { JobHandler } from './job-handler';

/** Deletes a connected system queued for background deletion. */
@Injectable()
export class ConnectedSystemDeletionHandler implements JobHandler<JobName.DeleteConnectedSystem> {
  readonly name = JobName.DeleteConnectedSystem;

  async handle(_payload: JobPayloads[JobName.DeleteConnectedSystem]): Promise<unknown> {
    throw new Error('Connected system deletion is not available yet.');
  }
}
