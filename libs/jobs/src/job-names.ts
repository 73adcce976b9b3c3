/** The one queue every Meridian job travels on. */
export const MERIDIAN_QUEUE = 'jobs';

/** Every job the worker runs. Payloads carry ids only: the database row is the truth. */
export enum JobName {
  /** Round trip through Redis and a worker: marks a queue_probe row processed. */
  Noop = 'noop',
  /** Executes a run-profile activity (import, synchronisation, export). */
  RunProfile = 'run-profile',
  /** Deletes a large connected system and everything under it in batches. */
  DeleteConnectedSystem = 'delete-connected-system',
}

export interface JobPayloads {
  [JobName.Noop]: { probeId: string };
  [JobName.RunProfile]: { activityId: string };
  [JobName.DeleteConnectedSystem]: { activityId: string };
}

export type JobPayload<N extends JobName> = JobPayloads[N];
