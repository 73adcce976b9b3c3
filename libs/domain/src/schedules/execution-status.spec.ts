import { ActivityStatus } from '../activities/activity.enums';
import {
  continuedFailuresNote,
  decideStepIndex,
  executionActivityStatus,
  ExecutionStatus,
  isFailedStep,
  isFinishedStep,
  stepFailureMessage,
  StepStatus,
  stepStatusForActivity,
} from './execution-status';

describe('execution and step statuses', () => {
  it.each<[string, boolean, StepStatus]>([
    [ActivityStatus.InProgress, false, StepStatus.Queued],
    [ActivityStatus.InProgress, true, StepStatus.Waiting],
    [ActivityStatus.Complete, true, StepStatus.Completed],
    [ActivityStatus.CompleteWithWarning, true, StepStatus.CompletedWithWarning],
    [ActivityStatus.CompleteWithError, true, StepStatus.CompletedWithError],
    [ActivityStatus.FailedWithError, true, StepStatus.Failed],
    [ActivityStatus.FailedWithError, false, StepStatus.Failed],
    [ActivityStatus.Cancelled, false, StepStatus.Cancelled],
    ['SomethingNew', true, StepStatus.Failed],
  ])('maps run-profile activity %s (claimed %p) to step status %s', (activity, claimed, step) => {
    expect(stepStatusForActivity(activity, claimed)).toBe(step);
  });

  it('uses the spec spellings of the step statuses', () => {
    expect(Object.values(StepStatus)).toEqual([
      'Pending',
      'Queued',
      'Processing',
      'Waiting',
      'Completed',
      'Completed with Warning',
      'Completed with Error',
      'Failed',
      'Cancelled',
    ]);
    expect(Object.values(ExecutionStatus)).toEqual(['Queued', 'InProgress', 'Completed', 'Failed', 'Cancelled', 'Paused']);
  });

  it.each<[string, boolean, boolean]>([
    ['Pending', false, false],
    ['Queued', false, false],
    ['Processing', false, false],
    ['Waiting', false, false],
    ['Completed', true, false],
    ['Completed with Warning', true, false],
    ['Completed with Error', true, false],
    ['Failed', true, true],
    ['Cancelled', true, true],
  ])('%s: finished %p, failure %p', (status, finished, failed) => {
    expect(isFinishedStep(status)).toBe(finished);
    expect(isFailedStep(status)).toBe(failed);
  });

  it('names the step in failure messages', () => {
    expect(stepFailureMessage({ stepIndex: 2, name: 'HR import', status: 'Failed', errorMessage: 'exit code 3' })).toBe(
      "Step 2 'HR import' failed: exit code 3",
    );
    expect(stepFailureMessage({ stepIndex: 0, name: 'x', status: 'Cancelled', errorMessage: null })).toBe("Step 0 'x' was cancelled.");
  });

  const step = (status: string, continueOnFailure = false, name = 's') => ({
    stepIndex: 1,
    name,
    status,
    errorMessage: status === 'Failed' ? 'boom' : null,
    continueOnFailure,
  });

  it.each([
    [[step('Completed'), step('Processing')], { running: true, failure: null }],
    [[step('Completed'), step('Pending')], { running: true, failure: null }],
    [[step('Completed'), step('Completed with Error')], { running: false, failure: null }],
    [[step('Completed'), step('Failed', true)], { running: false, failure: null }],
    [[step('Completed'), step('Failed', false, 'HR import')], { running: false, failure: "Step 1 'HR import' failed: boom" }],
    [
      [step('Failed', false, 'a'), step('Cancelled', false, 'b')],
      { running: false, failure: "Step 1 'a' failed: boom Step 1 'b' was cancelled." },
    ],
    [[], { running: false, failure: null }],
  ])('decides a step index: %p', (steps, decision) => {
    expect(decideStepIndex(steps)).toEqual(decision);
  });

  it('notes failures that were continued past', () => {
    expect(continuedFailuresNote([step('Completed')])).toBeNull();
    expect(continuedFailuresNote([step('Completed'), step('Failed', true, 'x')])).toBe(
      "Completed; 1 step failed and the execution continued (continueOnFailure): Step 1 'x' failed: boom",
    );
  });

  it.each<[ExecutionStatus, string[], ActivityStatus]>([
    [ExecutionStatus.Completed, ['Completed', 'Completed'], ActivityStatus.Complete],
    [ExecutionStatus.Completed, [], ActivityStatus.Complete],
    [ExecutionStatus.Completed, ['Completed', 'Completed with Warning'], ActivityStatus.CompleteWithWarning],
    [ExecutionStatus.Completed, ['Completed with Error'], ActivityStatus.CompleteWithWarning],
    [ExecutionStatus.Completed, ['Failed', 'Completed'], ActivityStatus.CompleteWithError],
    [ExecutionStatus.Failed, ['Failed'], ActivityStatus.FailedWithError],
    [ExecutionStatus.Cancelled, ['Completed', 'Cancelled'], ActivityStatus.Cancelled],
  ])('an execution ending %s with steps %p records activity %s', (status, steps, activity) => {
    expect(executionActivityStatus(status, steps)).toBe(activity);
  });
});
