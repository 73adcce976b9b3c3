import type { JobsOptions } from 'bullmq';
import { JobName, JobPayloads } from './job-names';

interface JobDefinition<N extends JobName> {
  /** Deterministic id, so enqueueing the same work twice is one job. */
  jobId: (payload: JobPayloads[N]) => string;
  options: JobsOptions;
}

const retention = { removeOnComplete: { age: 86_400, count: 10_000 }, removeOnFail: { age: 7 * 86_400, count: 10_000 } };

/** Attempts, backoff, ids and retention of every job, in one place (STYLE.md §6). */
export const JOB_DEFINITIONS: { [N in JobName]: JobDefinition<N> } = {
  [JobName.Noop]: {
    jobId: (p) => `noop-${p.probeId}`,
    options: { attempts: 3, backoff: { type: 'exponential', delay: 500 }, ...retention },
  },
  [JobName.RunProfile]: {
    // A run is claimed in the database; a redelivery after a worker crash finds it claimed and stops.
    jobId: (p) => `run-profile-${p.activityId}`,
    options: { attempts: 1, ...retention },
  },
  [JobName.DeleteConnectedSystem]: {
    jobId: (p) => `delete-connected-system-${p.activityId}`,
    // Deletion works in batches and is safe to resume, so a retry after a crash completes it.
    options: { attempts: 5, backoff: { type: 'exponential', delay: 2000 }, ...retention },
  },
};
