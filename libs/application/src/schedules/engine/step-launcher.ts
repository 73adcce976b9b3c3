import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DomainError, ErrorCode, InitiatedByType, ScheduleStepType, StepStatus } from '@meridian/domain';
import { ExecutionStepRecord, ExecutionStepStore, RunningExecutionRecord } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { Initiator } from '../../activities/initiator';
import { CreatedRun, RunProfilesService } from '../../connected-systems/run-profiles.service';
import { ScheduleClock } from '../schedule-clock';
import { CRON_INITIATED_BY, SCHEDULER_INITIATOR } from '../queue-execution';
import { LocalStepTasks } from './local-step-tasks';
import { SchedulerReplica } from './scheduler-replica';
import { StepSettler } from './step-settler';

/**
 * Starts a step that was just set Queued: a RunProfile step queues its run-profile activity (a worker
 * runs it); Executable, PowerShell and SqlScript steps run here, and the settler records their end.
 */
@Injectable()
export class StepLauncher {
  private readonly steps: ExecutionStepStore;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly replica: SchedulerReplica,
    private readonly settler: StepSettler,
    private readonly runProfiles: RunProfilesService,
    private readonly localTasks: LocalStepTasks,
    private readonly clock: ScheduleClock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.steps = new ExecutionStepStore(ds.manager);
  }

  /** Starts the step; a step that cannot start fails with the reason. */
  async launch(execution: RunningExecutionRecord, step: ExecutionStepRecord, now: Date): Promise<void> {
    try {
      if (step.stepType === ScheduleStepType.RunProfile) await this.launchRunProfile(execution, step, now);
      else await this.launchLocal(execution, step);
    } catch (e) {
      this.logger.log({
        level: 'error',
        message: `Step '${step.name}' of schedule execution ${execution.id} could not start: ${(e as Error).message}`,
        error: e,
        scheduleExecutionId: execution.id,
      });
      await this.steps.end(step.id, StepStatus.Failed, `the step could not start: ${(e as Error).message}`, this.clock.now());
    }
  }

  /**
   * Creates the run's activity and links it to the step in one transaction, only while the step is still
   * Queued (a step cancelled or timed out first gets no run), then queues the job after the commit. A run
   * the queue cannot take fails together with its step.
   */
  private async launchRunProfile(execution: RunningExecutionRecord, step: ExecutionStepRecord, now: Date): Promise<void> {
    const { connectedSystemId, runProfileId } = step;
    if (!connectedSystemId || !runProfileId) {
      await this.steps.end(step.id, StepStatus.Failed, 'the run profile of this step no longer exists.', now);
      return;
    }
    let run: CreatedRun | null;
    try {
      run = await this.ds.transaction(async (m) => {
        const steps = new ExecutionStepStore(m);
        if (!(await steps.lockQueued(execution.id, step.id))) return null;
        const created = await this.runProfiles.createRun(m, connectedSystemId, runProfileId, initiatorOf(execution));
        // The execution's activity (same id as the execution) is the parent of the runs it starts.
        await steps.linkRun(step.id, execution.id, created.activityId);
        return created;
      });
    } catch (e) {
      await this.steps.end(step.id, StepStatus.Failed, `the run profile could not start: ${(e as Error).message}`, this.clock.now());
      return;
    }
    if (!run) return;
    step.activityId = run.activityId;
    try {
      await this.runProfiles.queueRun(run, async (m, reason) => {
        await new ExecutionStepStore(m).end(
          step.id,
          StepStatus.Failed,
          `the run profile could not start: the run could not be queued: ${reason}`,
          this.clock.now(),
        );
      });
    } catch (e) {
      if (e instanceof DomainError && e.code === ErrorCode.ServiceUnavailable) return; // the step failed with its run
      throw e;
    }
    this.logger.log({
      level: 'information',
      message: `Schedule execution ${execution.id}: step ${step.stepIndex} '${step.name}' queued run-profile activity ${run.activityId}.`,
      scheduleExecutionId: execution.id,
      activityId: run.activityId,
    });
  }

  private async launchLocal(execution: RunningExecutionRecord, step: ExecutionStepRecord): Promise<void> {
    const task = await this.localTasks.start(execution, step);
    const entry = this.replica.add(step.id, execution.id, task);
    if (!(await this.steps.markProcessing(step.id, task.processId))) {
      this.replica.stop(entry, 'cancel');
    } else if (task.processId) {
      this.logger.log({
        level: 'information',
        message: `Schedule execution ${execution.id}: step ${step.stepIndex} '${step.name}' started process ${task.processId}.`,
        scheduleExecutionId: execution.id,
        processId: task.processId,
      });
    }
    void task.done.then((outcome) => this.settler.settle(execution, step, outcome));
  }
}

function initiatorOf(execution: RunningExecutionRecord): Initiator {
  if (execution.initiatedByType === CRON_INITIATED_BY) return SCHEDULER_INITIATOR;
  return { type: execution.initiatedByType as InitiatedByType, id: execution.initiatedById, name: execution.initiatedByName };
}
