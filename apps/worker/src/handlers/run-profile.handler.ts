import { Inject, Injectable } from '@nestjs/common';
import { RunProfileExecutor } from '@meridian/application';
import { JobName, JobPayloads } from '@meridian/jobs';
import { Logger, LOGGER } from '@meridian/platform';
import { DelayedError, Job } from 'bullmq';
import { hostname } from 'node:os';
import { JobHandler } from './job-handler';

/** How long a run that waits for a lock (another run of its system, or a synchronisation) sleeps before trying again. */
export const RUN_LOCK_RECHECK_MS = 2_000;

/**
 * Executes a run-profile activity. A run whose connected system (or, for a synchronisation, the
 * metaverse) is busy waits in the queue with its activity saying what it waits for.
 */
@Injectable()
export class RunProfileHandler implements JobHandler<JobName.RunProfile> {
  readonly name = JobName.RunProfile;

  constructor(
    private readonly executor: RunProfileExecutor,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async handle(payload: JobPayloads[JobName.RunProfile], job?: Job<JobPayloads[JobName.RunProfile]>): Promise<unknown> {
    const outcome = await this.executor.execute(payload.activityId, `${hostname()}:${process.pid}`);
    if (outcome.state === 'waiting' && job?.token) {
      this.logger.log({ level: 'debug', message: `Run ${payload.activityId} waits: ${outcome.message}`, activityId: payload.activityId });
      await job.moveToDelayed(Date.now() + RUN_LOCK_RECHECK_MS, job.token);
      throw new DelayedError();
    }
    return outcome;
  }
}
