import { Inject, Injectable } from '@nestjs/common';
import { ConnectedSystemDeletionService } from '@meridian/application';
import { JobName, JobPayloads } from '@meridian/jobs';
import { Logger, LOGGER } from '@meridian/platform';
import { DelayedError, Job } from 'bullmq';
import { hostname } from 'node:os';
import { JobHandler } from './job-handler';

/** How long a deletion that waits (for a run of the system, or for another worker) sleeps before looking again. */
export const DELETION_RECHECK_MS = 15_000;

/**
 * Deletes a connected system queued for background deletion. While a run of the system is active (or
 * another worker holds the activity) the job is put back with a delay; after its last failed attempt
 * the activity is failed so the system is no longer marked for deletion and DELETE can be retried.
 */
@Injectable()
export class ConnectedSystemDeletionHandler implements JobHandler<JobName.DeleteConnectedSystem> {
  readonly name = JobName.DeleteConnectedSystem;

  constructor(
    private readonly deletion: ConnectedSystemDeletionService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async handle(
    payload: JobPayloads[JobName.DeleteConnectedSystem],
    job?: Job<JobPayloads[JobName.DeleteConnectedSystem]>,
  ): Promise<unknown> {
    let result;
    try {
      result = await this.deletion.run(payload.activityId, `${hostname()}:${process.pid}`);
    } catch (e) {
      const attempts = job?.opts.attempts ?? 1;
      if (!job || job.attemptsMade + 1 >= attempts) {
        await this.deletion.fail(
          payload.activityId,
          `The deletion failed after ${attempts} attempt(s): ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      throw e;
    }
    if ((result.state === 'waiting' || result.state === 'busy') && job?.token) {
      this.logger.log({
        level: 'debug',
        message: `Deletion ${payload.activityId} postponed: ${result.reason}`,
        activityId: payload.activityId,
      });
      await job.moveToDelayed(Date.now() + DELETION_RECHECK_MS, job.token);
      throw new DelayedError();
    }
    return result;
  }
}
