import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { StepStatus } from '@meridian/domain';
import { ExecutionStepRecord, ExecutionStepStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { ScheduleClock } from '../schedule-clock';
import { StepOutcome } from '../steps/step-task';
import { ExecutionClaimer } from './execution-claimer';
import { SchedulerReplica } from './scheduler-replica';

/** Records how a step that ran on this scheduler ended (unless it was already ended: cancelled, timed out…). */
@Injectable()
export class StepSettler {
  private readonly steps: ExecutionStepStore;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly replica: SchedulerReplica,
    private readonly claimer: ExecutionClaimer,
    private readonly clock: ScheduleClock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.steps = new ExecutionStepStore(ds.manager);
  }

  async settle(execution: { id: string }, step: ExecutionStepRecord, outcome: StepOutcome): Promise<void> {
    const entry = this.replica.remove(step.id);
    try {
      const status = outcome.ok ? StepStatus.Completed : entry?.stoppedFor === 'cancel' ? StepStatus.Cancelled : StepStatus.Failed;
      // A process stopped for its timeout ends with the timeout's reason, whichever write lands first.
      const errorMessage = entry?.stoppedFor === 'timeout' ? timeoutMessage(step) : outcome.errorMessage;
      if (await this.steps.end(step.id, status, errorMessage, this.clock.now())) {
        this.logger.log({
          level: outcome.ok ? 'information' : 'warning',
          message: `Schedule execution ${execution.id}: step ${step.stepIndex} '${step.name}' ${outcome.ok ? 'completed' : `failed: ${errorMessage}`}.`,
          scheduleExecutionId: execution.id,
          stepIndex: step.stepIndex,
        });
      }
      await this.claimer.releaseIfDone(execution.id);
    } catch (e) {
      this.logger.log({
        level: 'error',
        message: `Could not record the end of step '${step.name}' of schedule execution ${execution.id}: ${(e as Error).message}`,
        error: e,
      });
    }
  }
}

/** The reason a step that ran past its timeoutSeconds ends with. */
export function timeoutMessage(step: Pick<ExecutionStepRecord, 'timeoutSeconds'>): string {
  return `timed out after ${step.timeoutSeconds} s`;
}
