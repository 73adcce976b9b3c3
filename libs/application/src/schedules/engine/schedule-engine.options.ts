/** Tuning of the schedule execution engine. Production uses the defaults; the scheduler's tests shorten them. */
export interface ScheduleEngineOptions {
  /** A claim whose heartbeat is older than this is taken over by the leader. */
  staleAfterMs: number;
  /** SIGTERM → SIGKILL grace for stopped step processes. */
  killGraceMs: number;
  /** How often the leader looks for finished executions abandoned by a scheduler that stopped. */
  sweepIntervalMs: number;
  /** Executions claimed (and abandoned ones swept) per pass at most. */
  claimBatchSize: number;
}

export const DEFAULT_SCHEDULE_ENGINE_OPTIONS: Readonly<ScheduleEngineOptions> = {
  staleAfterMs: 30_000,
  killGraceMs: 5_000,
  sweepIntervalMs: 30_000,
  claimBatchSize: 100,
};

export const SCHEDULE_ENGINE_OPTIONS = Symbol('SCHEDULE_ENGINE_OPTIONS');

/** The defaults with what is given (undefined keeps the default). */
export function scheduleEngineOptions(given: Partial<ScheduleEngineOptions> = {}): ScheduleEngineOptions {
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_SCHEDULE_ENGINE_OPTIONS, ...defined };
}
