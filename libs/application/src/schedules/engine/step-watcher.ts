import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ExecutionStatus, RUNNING_STEP_STATUSES, ScheduleStepType, StepStatus, stepStatusForActivity } from '@meridian/domain';
import {
  ExecutionActivityStore,
  ExecutionStepRecord,
  ExecutionStepStore,
  RunningExecutionStore,
  StepEnd,
  StepFollow,
} from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { SchedulerReplica } from './scheduler-replica';
import { timeoutMessage } from './step-settler';

const RUNNING = RUNNING_STEP_STATUSES as readonly string[];

/**
 * Watches running steps: RunProfile steps follow their activity, steps past their timeout are stopped
 * and fail, and tasks of executions no longer running here (cancelled, deleted…) are stopped.
 */
@Injectable()
export class StepWatcher {
  private readonly steps: ExecutionStepStore;
  private readonly activities: ExecutionActivityStore;
  private readonly executions: RunningExecutionStore;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly replica: SchedulerReplica,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.steps = new ExecutionStepStore(ds.manager);
    this.activities = new ExecutionActivityStore(ds.manager);
    this.executions = new RunningExecutionStore(ds.manager);
  }

  /** Stops the tasks of executions that are no longer active here (cancelled through the API, deleted…); a Paused one keeps them. */
  async stopTasksOfEndedExecutions(executionIds: readonly string[], now: Date): Promise<void> {
    if (!executionIds.length) return;
    const status = await this.executions.statuses(executionIds);
    const stopped: Array<{ stepId: string; executionId: string; processId: number | null; executionStatus: ExecutionStatus | undefined }> =
      [];
    const ends: StepEnd[] = [];
    for (const [stepId, entry] of this.replica.tasks()) {
      if (!executionIds.includes(entry.executionId) || entry.stoppedFor) continue;
      const executionStatus = status.get(entry.executionId);
      if (executionStatus === ExecutionStatus.Paused) continue;
      this.replica.stop(entry, 'cancel');
      const processId = entry.task.processId;
      ends.push({
        id: stepId,
        errorMessage:
          executionStatus === ExecutionStatus.Cancelled
            ? `Cancelled with the execution${processId ? `; process ${processId} was stopped` : ''}.`
            : 'Stopped: the execution is no longer running.',
      });
      stopped.push({ stepId, executionId: entry.executionId, processId, executionStatus });
    }
    await this.steps.endEach(ends, StepStatus.Cancelled, now);
    for (const s of stopped) {
      this.logger.log({
        level: 'information',
        message:
          `Stopped step ${s.stepId} of schedule execution ${s.executionId} (${s.executionStatus ?? 'deleted'})` +
          `${s.processId ? `: process group ${s.processId} sent SIGTERM` : ''}.`,
        scheduleExecutionId: s.executionId,
      });
    }
  }

  /** RunProfile steps follow their activity: Queued until a worker claims it, Waiting while it runs, then its outcome. */
  async followRunProfiles(steps: ExecutionStepRecord[], now: Date): Promise<void> {
    const following = steps.filter((s) => s.stepType === ScheduleStepType.RunProfile && s.activityId && RUNNING.includes(s.status));
    if (!following.length) return;
    const activities = new Map((await this.activities.runStates(following.map((s) => s.activityId!))).map((a) => [a.id, a]));
    const follows: StepFollow[] = [];
    for (const step of following) {
      const activity = activities.get(step.activityId!);
      const next = activity ? stepStatusForActivity(activity.status, activity.claimed) : StepStatus.Failed;
      if (next === step.status) continue;
      let message: string | null = null;
      if (!activity) message = `the run-profile activity ${step.activityId} no longer exists.`;
      else if (next === StepStatus.Failed) message = activity.errorMessage ?? 'the run profile failed.';
      else if (next === StepStatus.Cancelled) message = activity.errorMessage ?? 'the run-profile activity was cancelled.';
      const finished = !RUNNING.includes(next);
      follows.push({ id: step.id, status: next, completedAt: finished ? (activity?.completed ?? now) : null, errorMessage: message });
    }
    const changed = new Set(await this.steps.follow(follows));
    for (const f of follows) {
      if (!changed.has(f.id)) continue;
      const step = following.find((s) => s.id === f.id)!;
      step.status = f.status;
      step.errorMessage = f.errorMessage ?? step.errorMessage;
    }
  }

  /** A step running longer than its timeoutSeconds is stopped and fails (its run-profile activity is cancelled). */
  async enforceTimeouts(steps: ExecutionStepRecord[], now: Date): Promise<void> {
    const late = steps.filter(
      (s) =>
        s.timeoutSeconds &&
        s.startedAt &&
        RUNNING.includes(s.status) &&
        now.getTime() - new Date(s.startedAt).getTime() >= s.timeoutSeconds * 1000,
    );
    if (!late.length) return;
    const runsByMessage = new Map<string, string[]>();
    for (const step of late) {
      const entry = this.replica.get(step.id);
      if (entry) this.replica.stop(entry, 'timeout');
      if (step.stepType === ScheduleStepType.RunProfile && step.activityId) {
        const message = `Cancelled: the schedule step timed out after ${step.timeoutSeconds} s.`;
        runsByMessage.set(message, [...(runsByMessage.get(message) ?? []), step.activityId]);
      }
    }
    for (const [message, activityIds] of runsByMessage) await this.activities.cancelRuns(activityIds, now, message);
    const ended = new Set(
      await this.steps.endEach(
        late.map((s) => ({ id: s.id, errorMessage: timeoutMessage(s) })),
        StepStatus.Failed,
        now,
      ),
    );
    for (const step of late.filter((s) => ended.has(s.id))) {
      step.status = StepStatus.Failed;
      step.errorMessage = timeoutMessage(step);
      this.logger.log({
        level: 'warning',
        message: `Schedule execution ${step.executionId}: step ${step.stepIndex} '${step.name}' timed out after ${step.timeoutSeconds} s and was stopped.`,
        scheduleExecutionId: step.executionId,
      });
    }
  }
}
