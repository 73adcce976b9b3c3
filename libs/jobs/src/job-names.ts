/** The queue of short and maintenance jobs (deletions, housekeeping, probes). */
export const MERIDIAN_QUEUE = 'jobs';

/** Run-profile executions have their own queue, so a long import never starves deletions and housekeeping. */
export const RUNS_QUEUE = 'runs';

/** Every queue a worker consumes. */
export const QUEUES = [MERIDIAN_QUEUE, RUNS_QUEUE] as const;
export type QueueName = (typeof QUEUES)[number];

/** Every job the worker runs. Payloads carry ids only: the database row is the truth. */
export enum JobName {
  /** Round trip through Redis and a worker: marks a queue_probe row processed. */
  Noop = 'noop',
  /** Executes a run-profile activity (import, synchronisation, export). */
  RunProfile = 'run-profile',
  /** Deletes a large connected system and everything under it in batches. */
  DeleteConnectedSystem = 'delete-connected-system',
  /**
   * Repeatable maintenance: fails runs whose worker stopped heart-beating (releasing their locks) and
   * deletes metaverse objects whose deletion grace period has passed.
   */
  Housekeeping = 'housekeeping',
  /** Repeatable, daily: deletes change records and activities older than the history retention period. */
  HistoryCleanup = 'history-cleanup',
}

export interface JobPayloads {
  [JobName.Noop]: { probeId: string };
  [JobName.RunProfile]: { activityId: string };
  [JobName.DeleteConnectedSystem]: { activityId: string };
  [JobName.Housekeeping]: Record<string, never>;
  [JobName.HistoryCleanup]: Record<string, never>;
}

export type JobPayload<N extends JobName> = JobPayloads[N];
