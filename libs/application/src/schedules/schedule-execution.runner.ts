import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ExecutionStatus, StepStatus } from '@meridian/domain';
import { ExecutionStepStore, RunningExecutionStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { ExecutionAdvancer } from './engine/execution-advancer';
import { ExecutionClaimer } from './engine/execution-claimer';
import { SCHEDULE_ENGINE_OPTIONS, ScheduleEngineOptions } from './engine/schedule-engine.options';
import { SchedulerReplica } from './engine/scheduler-replica';
import { StepWatcher } from './engine/step-watcher';
import { ScheduleClock } from './schedule-clock';
import { StepOutcome } from './steps/step-task';

export interface PassOptions {
  /** Only the leader starts executions and steps; a former leader just finishes the processes it runs. */
  leader: boolean;
  /** Maintenance mode: Queued executions are not started (the dispatcher pauses them). */
  maintenance: boolean;
}

/**
 * The execution engine, driven by the scheduler's tick. The leader claims Queued executions (and
 * executions whose scheduler stopped heart-beating), moves them to InProgress and runs their steps
 * index by index: every step of the current stepIndex starts together, the next index starts when all
 * of them finished. RunProfile steps run as activities on workers and are followed to their end;
 * Executable, PowerShell and SqlScript steps run here. Every status write is conditional on the row
 * still being in the state it was read in, so `Cancelled` (and any finished state) is never overwritten.
 */
@Injectable()
export class ScheduleExecutionRunner implements OnModuleDestroy {
  private readonly executions: RunningExecutionStore;
  private readonly steps: ExecutionStepStore;
  private passing: Promise<void> | null = null;
  private stopped = false;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly replica: SchedulerReplica,
    private readonly claimer: ExecutionClaimer,
    private readonly watcher: StepWatcher,
    private readonly advancer: ExecutionAdvancer,
    private readonly clock: ScheduleClock,
    @Inject(SCHEDULE_ENGINE_OPTIONS) private readonly options: ScheduleEngineOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.executions = new RunningExecutionStore(ds.manager);
    this.steps = new ExecutionStepStore(ds.manager);
  }

  /** Identifies this scheduler replica in `claimed_by`. */
  get instanceId(): string {
    return this.replica.instanceId;
  }

  /** Process ids of the steps running on this scheduler (for diagnostics and tests). */
  get runningProcessIds(): number[] {
    return this.replica.processIds();
  }

  /** One pass of the engine; passes never overlap (a caller during a pass waits for it). */
  pass(options: PassOptions): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.passing ??= this.runPass(options).finally(() => {
      this.passing = null;
    });
    return this.passing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.shutdown();
  }

  /**
   * Stops this replica's engine: processes and SQL scripts still running are stopped and their steps
   * failed (their outcome would be unknown to the next leader), then every claim is released so the
   * leader carries the executions on at once.
   */
  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.passing?.catch(() => undefined);
    if (!this.replica.claimedAny && !this.replica.size) return;
    const now = this.clock.now();
    const endings: Array<Promise<StepOutcome>> = [];
    const stepIds: string[] = [];
    for (const [stepId, entry] of this.replica.tasks()) {
      entry.stoppedFor ??= 'shutdown';
      entry.task.stop();
      endings.push(entry.task.done);
      stepIds.push(stepId);
    }
    await this.steps
      .endEach(
        stepIds.map((id) => ({ id, errorMessage: 'interrupted: the scheduler stopped while this step was running.' })),
        StepStatus.Failed,
        now,
      )
      .catch(() => undefined);
    await Promise.race([Promise.all(endings), new Promise((r) => setTimeout(r, this.options.killGraceMs + 1_000).unref())]);
    await this.claimer.releaseAll().catch(() => undefined);
  }

  private async runPass(options: PassOptions): Promise<void> {
    const now = this.clock.now();
    if (options.leader) {
      await this.claimer.claim(now, options.maintenance);
      await this.claimer.sweepWhenDue(now);
    }
    const mine = await this.executions.claimedBy(this.replica.instanceId);
    const mineIds = new Set(mine.map((e) => e.id));
    const withTasks = this.replica.executionIds();
    await this.claimer.heartbeat([...new Set([...mineIds, ...withTasks])], now);
    await this.watcher.stopTasksOfEndedExecutions(
      [...withTasks].filter((id) => !mineIds.has(id)),
      now,
    );
    if (!mine.length) return;

    const steps = await this.steps.ofExecutions([...mineIds]);
    await this.watcher.followRunProfiles(steps, now);
    await this.watcher.enforceTimeouts(steps, now);
    for (const execution of mine) {
      const own = steps.filter((s) => s.executionId === execution.id);
      try {
        if (options.leader && !(execution.status === ExecutionStatus.Queued && options.maintenance))
          await this.advancer.advance(execution, own);
        else if (!options.leader && !this.replica.hasTasks(execution.id)) await this.claimer.release(execution.id);
      } catch (e) {
        this.logger.log({
          level: 'error',
          message: `Schedule execution ${execution.id} could not advance: ${(e as Error).message}`,
          error: e,
          scheduleExecutionId: execution.id,
        });
      }
    }
  }
}
