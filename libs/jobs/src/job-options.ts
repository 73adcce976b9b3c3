import type { JobsOptions } from 'bullmq';
import { JobName, JobPayloads, MERIDIAN_QUEUE, QueueName, RUNS_QUEUE } from './job-names';

interface JobDefinition<N extends JobName> {
  queue: QueueName;
  /** Deterministic id, so enqueueing the same work twice is one job. */
  jobId: (payload: JobPayloads[N]) => string;
  options: JobsOptions;
}

const retention = { removeOnComplete: { age: 86_400, count: 10_000 }, removeOnFail: { age: 7 * 86_400, count: 10_000 } };

/** Attempts, backoff, ids and retention of every job, in one place (STYLE.md §6). */
export const JOB_DEFINITIONS: { [N in JobName]: JobDefinition<N> } = {
  [JobName.Noop]: {
    queue: MERIDIAN_QUEUE,
    jobId: (p) => `noop-${p.probeId}`,
    options: { attempts: 3, backoff: { type: 'exponential', delay: 500 }, ...retention },
  },
  [JobName.RunProfile]: {
    queue: RUNS_QUEUE,
    // A run is claimed in the database; a redelivery after a worker crash finds it claimed and stops.
    jobId: (p) => `run-profile-${p.activityId}`,
    options: { attempts: 1, ...retention },
  },
  [JobName.DeleteConnectedSystem]: {
    queue: MERIDIAN_QUEUE,
    jobId: (p) => `delete-connected-system-${p.activityId}`,
    // Deletion works in batches and is safe to resume, so a retry after a crash completes it.
    options: { attempts: 5, backoff: { type: 'exponential', delay: 2000 }, ...retention },
  },
  [JobName.Housekeeping]: {
    queue: MERIDIAN_QUEUE,
    // A repeatable job (see HOUSEKEEPING_EVERY_MS); each repetition gets its own id from BullMQ.
    jobId: () => 'housekeeping',
    options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  },
  [JobName.HistoryCleanup]: {
    queue: MERIDIAN_QUEUE,
    // A repeatable job (see HISTORY_CLEANUP_EVERY_MS). One attempt: the next day's run deletes what a failed one left.
    jobId: () => 'history-cleanup',
    options: { attempts: 1, removeOnComplete: { count: 30 }, removeOnFail: { count: 30 } },
  },
};

/** How often housekeeping runs (stale-run reaper, expired pending deletions). */
export const HOUSEKEEPING_EVERY_MS = 30_000;

/** How often the history retention cleanup runs. */
export const HISTORY_CLEANUP_EVERY_MS = 24 * 60 * 60 * 1000;

/** The repeatable jobs every worker registers as it starts (one scheduler each, whatever the number of workers). */
export const REPEATABLE_JOBS = [
  { name: JobName.Housekeeping, every: HOUSEKEEPING_EVERY_MS },
  { name: JobName.HistoryCleanup, every: HISTORY_CLEANUP_EVERY_MS },
] as const;
