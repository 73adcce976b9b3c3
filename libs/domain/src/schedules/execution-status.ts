import { ActivityStatus } from '../activities/activity.enums';

/** Status of a schedule execution (spec 3.2). */
export enum ExecutionStatus {
  Queued = 'Queued',
  InProgress = 'InProgress',
  Completed = 'Completed',
  Failed = 'Failed',
  Cancelled = 'Cancelled',
  Paused = 'Paused',
}

/** Status of an execution step (spec 3.2). */
export enum StepStatus {
  /** Its step index has not started yet. */
  Pending = 'Pending',
  /** Started, not yet running: a RunProfile step's activity waits in the job queue for a worker. */
  Queued = 'Queued',
  /** Running on the scheduler: a process (Executable, PowerShell) or a SQL script. */
  Processing = 'Processing',
  /** A worker runs the RunProfile step's activity; the scheduler waits for it to end. */
  Waiting = 'Waiting',
  Completed = 'Completed',
  CompletedWithWarning = 'Completed with Warning',
  CompletedWithError = 'Completed with Error',
  Failed = 'Failed',
  Cancelled = 'Cancelled',
}

export const ACTIVE_EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  ExecutionStatus.Queued,
  ExecutionStatus.InProgress,
  ExecutionStatus.Paused,
];
export const FINISHED_EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  ExecutionStatus.Completed,
  ExecutionStatus.Failed,
  ExecutionStatus.Cancelled,
];
export const RUNNING_STEP_STATUSES: readonly StepStatus[] = [StepStatus.Queued, StepStatus.Processing, StepStatus.Waiting];
export const FINISHED_STEP_STATUSES: readonly StepStatus[] = [
  StepStatus.Completed,
  StepStatus.CompletedWithWarning,
  StepStatus.CompletedWithError,
  StepStatus.Failed,
  StepStatus.Cancelled,
];

export function isFinishedStep(status: string): boolean {
  return (FINISHED_STEP_STATUSES as readonly string[]).includes(status);
}

/**
 * Whether a finished step counts as a failure for `continueOnFailure`. A run profile that completed with
 * object errors or warnings did run: it does not stop the execution (its activity holds the details).
 */
export function isFailedStep(status: string): boolean {
  return status === StepStatus.Failed || status === StepStatus.Cancelled;
}

/**
 * The step status that mirrors a run-profile activity: queued until a worker claims it, waiting while
 * the worker runs it, then the activity's outcome (spec 3.1 → 3.2).
 */
export function stepStatusForActivity(activityStatus: string, claimed: boolean): StepStatus {
  switch (activityStatus) {
    case ActivityStatus.InProgress:
      return claimed ? StepStatus.Waiting : StepStatus.Queued;
    case ActivityStatus.Complete:
      return StepStatus.Completed;
    case ActivityStatus.CompleteWithWarning:
      return StepStatus.CompletedWithWarning;
    case ActivityStatus.CompleteWithError:
      return StepStatus.CompletedWithError;
    case ActivityStatus.FailedWithError:
      return StepStatus.Failed;
    case ActivityStatus.Cancelled:
      return StepStatus.Cancelled;
    default:
      return StepStatus.Failed;
  }
}

/** How an execution's own activity ends, from its final status and its steps. */
export function executionActivityStatus(status: ExecutionStatus, stepStatuses: readonly string[]): ActivityStatus {
  if (status === ExecutionStatus.Cancelled) return ActivityStatus.Cancelled;
  if (status === ExecutionStatus.Failed) return ActivityStatus.FailedWithError;
  if (stepStatuses.some(isFailedStep)) return ActivityStatus.CompleteWithError;
  if (stepStatuses.some((s) => s === StepStatus.CompletedWithError || s === StepStatus.CompletedWithWarning))
    return ActivityStatus.CompleteWithWarning;
  return ActivityStatus.Complete;
}

/** "Step 2 'HR import' failed: exit code 3" — the stepIndex as the API shows it, and the step's name. */
export function stepFailureMessage(step: { stepIndex: number; name: string; status: string; errorMessage: string | null }): string {
  const verb = step.status === StepStatus.Cancelled ? 'was cancelled' : 'failed';
  return `Step ${step.stepIndex} '${step.name}' ${verb}${step.errorMessage ? `: ${step.errorMessage}` : '.'}`;
}

export interface StepOutcomeView {
  stepIndex: number;
  name: string;
  status: string;
  errorMessage: string | null;
  continueOnFailure: boolean;
}

export interface IndexDecision {
  /** The step index is still running. */
  running: boolean;
  /** A failed step without continueOnFailure: the execution fails with this message. */
  failure: string | null;
}

/** Decides what the finished (or unfinished) steps of one step index mean for the execution. */
export function decideStepIndex(steps: readonly StepOutcomeView[]): IndexDecision {
  if (steps.some((s) => !isFinishedStep(s.status))) return { running: true, failure: null };
  const blocking = steps.filter((s) => isFailedStep(s.status) && !s.continueOnFailure);
  return { running: false, failure: blocking.length ? blocking.map(stepFailureMessage).join(' ') : null };
}

/** The note on a Completed execution whose continueOnFailure steps failed (null when none did). */
export function continuedFailuresNote(steps: readonly StepOutcomeView[]): string | null {
  const failed = steps.filter((s) => isFailedStep(s.status));
  if (!failed.length) return null;
  return `Completed; ${failed.length} step${failed.length === 1 ? '' : 's'} failed and the execution continued (continueOnFailure): ${failed.map(stepFailureMessage).join(' ')}`;
}
