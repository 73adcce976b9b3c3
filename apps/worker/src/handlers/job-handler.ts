import type { Job } from 'bullmq';
import { JobName, JobPayloads } from '@meridian/jobs';

/** A thin job handler: load ids, call an application service, report. */
export interface JobHandler<N extends JobName = JobName> {
  readonly name: N;
  handle(payload: JobPayloads[N], job: Job<JobPayloads[N]>): Promise<unknown>;
}

export const JOB_HANDLERS = Symbol('JOB_HANDLERS');
