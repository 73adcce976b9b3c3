import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  continuedFailuresNote,
  decideStepIndex,
  executionActivityStatus,
  ExecutionStatus,
  RUNNING_STEP_STATUSES,
  StepOutcomeView,
  StepStatus,
} from '@meridian/domain';
import {
  ExecutionActivityStore,
  ExecutionStepRecord,
  ExecutionStepStore,
  RunningExecutionRecord,
  RunningExecutionStore,
} from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { ScheduleClock } from '../schedule-clock';
import { StepLauncher } from './step-launcher';

const RUNNING = RUNNING_STEP_STATUSES as readonly string[];

function outcomeOf(s: ExecutionStepRecord): StepOutcomeView {
  return { stepIndex: s.stepIndex, name: s.name, status: s.status, errorMessage: s.errorMessage, continueOnFailure: s.continueOnFailure };
}

/**
 * Moves an execution on, step index by step index: a Queued execution starts, every step of the current
 * index starts together, the next index starts when all of them finished, and the execution ends
 * Completed or Failed (with its activity) after the last one or at a failure without continueOnFailure.
 */
@Injectable()
export class ExecutionAdvancer {
  private readonly executions: RunningExecutionStore;
  private readonly steps: ExecutionStepStore;
  private readonly activities: ExecutionActivityStore;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly launcher: StepLauncher,
    private readonly clock: ScheduleClock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.executions = new RunningExecutionStore(ds.manager);
    this.steps = new ExecutionStepStore(ds.manager);
    this.activities = new ExecutionActivityStore(ds.manager);
  }

  async advance(execution: RunningExecutionRecord, steps: ExecutionStepRecord[]): Promise<void> {
    if (execution.status === ExecutionStatus.Queued && !(await this.start(execution, steps))) return;
    let index = execution.currentStepIndex;
    for (;;) {
      const current = steps.filter((s) => s.stepIndex === index);
      if (current.some((s) => s.status === StepStatus.Pending)) {
        await this.startIndex(execution, index);
        return;
      }
      const decision = decideStepIndex(current.map(outcomeOf));
      if (decision.running) return;
      if (decision.failure) {
        await this.finish(execution, ExecutionStatus.Failed, decision.failure, steps);
        return;
      }
      const later = steps.map((s) => s.stepIndex).filter((i) => i > index);
      if (!later.length) {
        await this.finish(execution, ExecutionStatus.Completed, continuedFailuresNote(steps.map(outcomeOf)), steps);
        return;
      }
      const next = Math.min(...later);
      if (!(await this.executions.moveToIndex(execution.id, index, next))) return;
      execution.currentStepIndex = index = next;
    }
  }

  /** Queued → InProgress, with its activity; false when it was no longer Queued. */
  private async start(execution: RunningExecutionRecord, steps: ExecutionStepRecord[]): Promise<boolean> {
    const now = this.clock.now();
    if (!(await this.executions.start(execution.id, now))) return false;
    execution.status = ExecutionStatus.InProgress;
    await this.activities.markRunning(execution.id, now, `Running (${new Set(steps.map((s) => s.stepIndex)).size} step index(es)).`);
    this.logger.log({
      level: 'information',
      message: `Schedule execution ${execution.id} ("${execution.scheduleName}") started.`,
      scheduleExecutionId: execution.id,
    });
    return true;
  }

  /** Starts every Pending step of a step index together. */
  private async startIndex(execution: RunningExecutionRecord, index: number): Promise<void> {
    const now = this.clock.now();
    const started = await this.steps.startIndex(execution.id, index, now);
    if (!started.length) return;
    this.logger.log({
      level: 'information',
      message: `Schedule execution ${execution.id}: step index ${index} started (${started.map((s) => `'${s.name}'`).join(', ')}).`,
      scheduleExecutionId: execution.id,
      stepIndex: index,
    });
    await Promise.all(started.map((step) => this.launcher.launch(execution, step, now)));
  }

  private async finish(
    execution: RunningExecutionRecord,
    status: ExecutionStatus,
    message: string | null,
    steps: ExecutionStepRecord[],
  ): Promise<void> {
    const now = this.clock.now();
    if (!(await this.executions.finish(execution.id, status, now, message))) return;
    await this.activities.finish(execution.id, {
      status: executionActivityStatus(
        status,
        steps.map((s) => s.status),
      ),
      completed: now,
      message: status === ExecutionStatus.Completed ? (message ?? 'Completed.') : 'Failed.',
      errorMessage: status === ExecutionStatus.Failed ? message : null,
      objectsProcessed: steps.filter((s) => !RUNNING.includes(s.status) && s.status !== StepStatus.Pending).length,
    });
    this.logger.log({
      level: status === ExecutionStatus.Completed && !message ? 'information' : 'warning',
      message: `Schedule execution ${execution.id} ("${execution.scheduleName}") ${status}${message ? `: ${message}` : '.'}`,
      scheduleExecutionId: execution.id,
    });
  }
}
