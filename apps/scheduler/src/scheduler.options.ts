/** Tuning of a scheduler instance. Production uses the defaults; the scheduler's tests shorten them and inject a fake clock. */
export interface SchedulerOptions {
  /** The time source of dispatch and the engine (default: the system clock). */
  clock?: () => Date;
  /** Time between ticks (default 1000 ms). */
  tickIntervalMs?: number;
  /** How often a follower retries the leader lock (default: LeaderService's 2000 ms). */
  leaderIntervalMs?: number;
  /** Heartbeat age after which another scheduler takes an execution over (default 30 s). */
  staleAfterMs?: number;
  /** SIGTERM → SIGKILL grace for stopped step processes (default 5 s). */
  killGraceMs?: number;
  /** How many due schedules one dispatch takes at most (default 100). */
  dispatchBatchSize?: number;
  /** false: no automatic ticks (tests call ScheduleTickService.tick themselves). */
  autoStart?: boolean;
}

export const SCHEDULER_OPTIONS = Symbol('SCHEDULER_OPTIONS');
