/** How a step that ran on the scheduler ended. */
export interface StepOutcome {
  ok: boolean;
  /** Why it failed (null on success). */
  errorMessage: string | null;
}

/** A step running on the scheduler: a child process or a SQL script. */
export interface StepTask {
  /** The child process (group leader) id; null for SQL scripts. */
  readonly processId: number | null;
  /** Settles once the work has ended (never rejects). */
  readonly done: Promise<StepOutcome>;
  /** Asks the work to stop now: SIGTERM to the process group then SIGKILL after the grace period; SQL is cancelled and rolled back. */
  stop(): void;
}

/** A task that has already ended (a step that could not start). */
export function finishedTask(outcome: StepOutcome): StepTask {
  return { processId: null, done: Promise.resolve(outcome), stop: () => undefined };
}

export function failedTask(errorMessage: string): StepTask {
  return finishedTask({ ok: false, errorMessage });
}

/** What a step writes to the scheduler log: one entry per output line, with the step named. */
export interface StepLog {
  line(stream: 'stdout' | 'stderr', text: string): void;
  info(message: string): void;
  debug(message: string): void;
}
