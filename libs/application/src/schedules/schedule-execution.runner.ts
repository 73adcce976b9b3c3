import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityStatus, InitiatedByType } from '@meridian/domain';
import { JobName, JobQueue } from '@meridian/jobs';
import { APP_CONFIG, AppConfig, Logger, LOGGER } from '@meridian/platform';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource, EntityManager } from 'typeorm';
import { Initiator } from '../activities/initiator';
import { RunProfilesService } from '../connected-systems/run-profiles.service';
import {
  continuedFailuresNote,
  decideStepIndex,
  executionActivityStatus,
  ExecutionStatus,
  FINISHED_EXECUTION_STATUSES,
  RUNNING_STEP_STATUSES,
  StepStatus,
  stepStatusForActivity,
} from './execution-status';
import { ScheduleClock } from './schedule-clock';
import { cancelActivities } from './schedule-executions.service';
import { CRON_INITIATED_BY, SCHEDULER_INITIATOR } from './schedule-execution.store';
import { StepSecrets } from './step-secrets';
import { launchLocalStep } from './steps/local-step.launcher';
import { failedTask, StepLog, StepOutcome, StepTask } from './steps/step-task';

interface ExecutionRow {
  id: string;
  schedule_id: string;
  schedule_name: string;
  status: string;
  current_step_index: number;
  initiated_by_type: string;
  initiated_by_id: string | null;
  initiated_by_name: string | null;
}

interface StepRow {
  id: string;
  execution_id: string;
  step_id: string | null;
  step_index: number;
  name: string;
  step_type: string;
  continue_on_failure: boolean;
  timeout_seconds: number | null;
  connected_system_id: number | null;
  run_profile_id: number | null;
  status: string;
  started_at: Date | null;
  error_message: string | null;
  activity_id: string | null;
}

interface RunningStep {
  executionId: string;
  task: StepTask;
  /** Why this scheduler stopped the task, if it did. */
  stoppedFor: 'cancel' | 'timeout' | 'shutdown' | null;
}

export interface PassOptions {
  /** Only the leader starts executions and steps; a former leader just finishes the processes it runs. */
  leader: boolean;
  /** Maintenance mode: Queued executions are not started (the dispatcher pauses them). */
  maintenance: boolean;
}

const RUNNING = RUNNING_STEP_STATUSES as readonly string[];
const STEP_COLUMNS = `id, execution_id, step_id, step_index, name, step_type, continue_on_failure, timeout_seconds, connected_system_id,
                      run_profile_id, status, started_at, error_message, activity_id`;

/** `UPDATE … RETURNING` through TypeORM's postgres driver answers [rows, affected]. */
async function update<T = unknown>(m: EntityManager | DataSource, sql: string, params: unknown[]): Promise<{ rows: T[]; count: number }> {
  const [rows, count] = (await m.query(sql, params)) as [T[], number];
  return { rows, count };
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
  /** Identifies this scheduler replica in `claimed_by`. */
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  /** A claim whose heartbeat is older than this is taken over by the leader. */
  staleAfterMs = 30_000;
  /** SIGTERM → SIGKILL grace for stopped processes. */
  killGraceMs = 5_000;
  /** How often the leader looks for finished executions abandoned by a scheduler that stopped. */
  sweepIntervalMs = 30_000;

  private readonly running = new Map<string, RunningStep>();
  private passing: Promise<void> | null = null;
  private stopped = false;
  private claimedAny = false;
  private lastSweep = 0;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: ScheduleClock,
    private readonly runProfiles: RunProfilesService,
    private readonly jobs: JobQueue,
    private readonly secrets: StepSecrets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Process ids of the steps running on this scheduler (for diagnostics and tests). */
  get runningProcessIds(): number[] {
    return [...this.running.values()].map((r) => r.task.processId).filter((p): p is number => p !== null);
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
    if (!this.claimedAny && !this.running.size) return;
    const now = this.clock.now();
    const endings: Array<Promise<StepOutcome>> = [];
    for (const [stepId, entry] of this.running) {
      entry.stoppedFor ??= 'shutdown';
      entry.task.stop();
      endings.push(entry.task.done);
      await this.endStep(stepId, StepStatus.Failed, 'interrupted: the scheduler stopped while this step was running.', now).catch(
        () => undefined,
      );
    }
    await Promise.race([Promise.all(endings), new Promise((r) => setTimeout(r, this.killGraceMs + 1_000).unref())]);
    await this.ds
      .query(`UPDATE schedule_execution SET claimed_by = NULL, heartbeat_at = NULL WHERE claimed_by = $1`, [this.instanceId])
      .catch(() => undefined);
  }

  private async runPass(options: PassOptions): Promise<void> {
    const now = this.clock.now();
    if (options.leader) {
      await this.claim(now, options.maintenance);
      if (now.getTime() - this.lastSweep >= this.sweepIntervalMs) {
        this.lastSweep = now.getTime();
        await this.sweepAbandoned(now);
      }
    }
    const mine: ExecutionRow[] = await this.ds.query(
      `SELECT id, schedule_id, schedule_name, status, current_step_index, initiated_by_type, initiated_by_id, initiated_by_name
         FROM schedule_execution WHERE status IN ($2, $3) AND claimed_by = $1 ORDER BY queued_at`,
      [this.instanceId, ExecutionStatus.Queued, ExecutionStatus.InProgress],
    );
    const mineIds = new Set(mine.map((e) => e.id));
    const withTasks = new Set([...this.running.values()].map((r) => r.executionId));
    const beat = [...new Set([...mineIds, ...withTasks])];
    if (beat.length)
      await this.ds.query(`UPDATE schedule_execution SET heartbeat_at = $2 WHERE id = ANY($1::uuid[]) AND claimed_by = $3`, [
        beat,
        now,
        this.instanceId,
      ]);
    await this.stopTasksOfEndedExecutions(
      [...withTasks].filter((id) => !mineIds.has(id)),
      now,
    );
    if (!mine.length) return;

    const steps: StepRow[] = await this.ds.query(
      `SELECT ${STEP_COLUMNS} FROM schedule_execution_step WHERE execution_id = ANY($1::uuid[]) ORDER BY step_index, name, id`,
      [[...mineIds]],
    );
    await this.followRunProfiles(steps, now);
    await this.enforceTimeouts(steps, now);
    for (const execution of mine) {
      const own = steps.filter((s) => s.execution_id === execution.id);
      try {
        if (options.leader && !(execution.status === ExecutionStatus.Queued && options.maintenance)) await this.advance(execution, own);
        else if (!options.leader && !this.hasTasks(execution.id)) await this.release(execution.id);
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

  /** Takes Queued executions nobody drives, and executions whose scheduler stopped heart-beating. */
  private async claim(now: Date, maintenance: boolean): Promise<void> {
    const stale = new Date(now.getTime() - this.staleAfterMs);
    const requeue: string[] = [];
    await this.ds.transaction(async (m) => {
      const rows: Array<{ id: string; status: string; claimed_by: string | null; schedule_name: string }> = await m.query(
        `SELECT id, status, claimed_by, schedule_name FROM schedule_execution
          WHERE status IN ($2, $3) AND claimed_by IS DISTINCT FROM $1
            AND (claimed_by IS NULL OR heartbeat_at IS NULL OR heartbeat_at < $4)
            AND (status = $3 OR NOT $5::boolean)
          ORDER BY queued_at LIMIT 100 FOR UPDATE SKIP LOCKED`,
        [this.instanceId, ExecutionStatus.Queued, ExecutionStatus.InProgress, stale, maintenance],
      );
      if (!rows.length) return;
      this.claimedAny = true;
      await m.query(`UPDATE schedule_execution SET claimed_by = $1, heartbeat_at = $2 WHERE id = ANY($3::uuid[])`, [
        this.instanceId,
        now,
        rows.map((r) => r.id),
      ]);
      for (const row of rows.filter((r) => r.claimed_by)) {
        // The previous scheduler's processes and SQL scripts died with it (or are out of reach): their outcome is unknown.
        const { count } = await update(
          m,
          `UPDATE schedule_execution_step SET status = $2, completed_at = $3, error_message = $4
            WHERE execution_id = $1 AND status IN ($5, $6) AND (step_type <> 'RunProfile' OR activity_id IS NULL)`,
          [
            row.id,
            StepStatus.Failed,
            now,
            `interrupted: the scheduler running this step (${row.claimed_by}) stopped before it finished; its outcome is unknown.`,
            StepStatus.Queued,
            StepStatus.Processing,
          ],
        );
        const unclaimed: Array<{ activity_id: string }> = await m.query(
          `SELECT es.activity_id FROM schedule_execution_step es JOIN activity a ON a.id = es.activity_id
            WHERE es.execution_id = $1 AND es.status = $2 AND a.status = $3 AND a.claimed_at IS NULL`,
          [row.id, StepStatus.Queued, ActivityStatus.InProgress],
        );
        requeue.push(...unclaimed.map((u) => u.activity_id));
        this.logger.log({
          level: 'warning',
          message:
            `Took over schedule execution ${row.id} ("${row.schedule_name}", ${row.status}) from ${row.claimed_by}, whose heartbeat stopped` +
            `${count ? `; ${count} step(s) it was running failed as interrupted` : ''}.`,
          scheduleExecutionId: row.id,
        });
      }
    });
    for (const activityId of requeue) {
      // Deterministic job ids make this a no-op when the job is still in the queue.
      await this.jobs
        .enqueue(JobName.RunProfile, { activityId })
        .catch((e: Error) =>
          this.logger.log({ level: 'warning', message: `Could not re-queue run-profile activity ${activityId}: ${e.message}`, activityId }),
        );
    }
  }

  /** Finished executions still claimed by a scheduler that stopped: their unfinished steps end, the claim goes. */
  private async sweepAbandoned(now: Date): Promise<void> {
    const stale = new Date(now.getTime() - this.staleAfterMs);
    const rows: Array<{ id: string; status: string; claimed_by: string }> = await this.ds.query(
      `SELECT id, status, claimed_by FROM schedule_execution
        WHERE status = ANY($2::text[]) AND claimed_by IS NOT NULL AND claimed_by <> $1 AND (heartbeat_at IS NULL OR heartbeat_at < $3) LIMIT 100`,
      [this.instanceId, FINISHED_EXECUTION_STATUSES, stale],
    );
    for (const row of rows) {
      await this.ds.query(
        `UPDATE schedule_execution_step SET status = $2, completed_at = $3, error_message = coalesce(error_message, $4)
          WHERE execution_id = $1 AND status = ANY($5::text[])`,
        [
          row.id,
          row.status === ExecutionStatus.Cancelled ? StepStatus.Cancelled : StepStatus.Failed,
          now,
          `interrupted: the scheduler running this step (${row.claimed_by}) stopped.`,
          RUNNING,
        ],
      );
      await this.ds.query(`UPDATE schedule_execution SET claimed_by = NULL, heartbeat_at = NULL WHERE id = $1 AND claimed_by = $2`, [
        row.id,
        row.claimed_by,
      ]);
    }
  }

  /** Processes of executions that are no longer active here (cancelled through the API, deleted…) are stopped. */
  private async stopTasksOfEndedExecutions(executionIds: string[], now: Date): Promise<void> {
    if (!executionIds.length) return;
    const rows: Array<{ id: string; status: string }> = await this.ds.query(
      `SELECT id, status FROM schedule_execution WHERE id = ANY($1::uuid[])`,
      [executionIds],
    );
    const status = new Map(rows.map((r) => [r.id, r.status]));
    for (const [stepId, entry] of this.running) {
      if (!executionIds.includes(entry.executionId) || entry.stoppedFor) continue;
      const executionStatus = status.get(entry.executionId);
      if (executionStatus === ExecutionStatus.Paused) continue;
      entry.stoppedFor = 'cancel';
      entry.task.stop();
      await this.endStep(
        stepId,
        StepStatus.Cancelled,
        executionStatus === ExecutionStatus.Cancelled
          ? `Cancelled with the execution${entry.task.processId ? `; process ${entry.task.processId} was stopped` : ''}.`
          : 'Stopped: the execution is no longer running.',
        now,
      );
      this.logger.log({
        level: 'information',
        message:
          `Stopped step ${stepId} of schedule execution ${entry.executionId} (${executionStatus ?? 'deleted'})` +
          `${entry.task.processId ? `: process group ${entry.task.processId} sent SIGTERM` : ''}.`,
        scheduleExecutionId: entry.executionId,
      });
    }
  }

  /** RunProfile steps follow their activity: Queued until a worker claims it, Waiting while it runs, then its outcome. */
  private async followRunProfiles(steps: StepRow[], now: Date): Promise<void> {
    const following = steps.filter((s) => s.step_type === 'RunProfile' && s.activity_id && RUNNING.includes(s.status));
    if (!following.length) return;
    const rows: Array<{ id: string; status: string; claimed: boolean; error_message: string | null; completed: Date | null }> =
      await this.ds.query(
        `SELECT id, status, claimed_at IS NOT NULL AS claimed, error_message, completed FROM activity WHERE id = ANY($1::uuid[])`,
        [following.map((s) => s.activity_id)],
      );
    const activities = new Map(rows.map((r) => [r.id, r]));
    for (const step of following) {
      const activity = activities.get(step.activity_id!);
      const next = activity ? stepStatusForActivity(activity.status, activity.claimed) : StepStatus.Failed;
      if (next === step.status) continue;
      const finished = !RUNNING.includes(next);
      let message: string | null = null;
      if (!activity) message = `the run-profile activity ${step.activity_id} no longer exists.`;
      else if (next === StepStatus.Failed) message = activity.error_message ?? 'the run profile failed.';
      else if (next === StepStatus.Cancelled) message = activity.error_message ?? 'the run-profile activity was cancelled.';
      const { count } = await update(
        this.ds,
        `UPDATE schedule_execution_step SET status = $2, completed_at = CASE WHEN $3::boolean THEN $4::timestamptz ELSE completed_at END, error_message = coalesce($5, error_message)
          WHERE id = $1 AND status = ANY($6::text[])`,
        [step.id, next, finished, activity?.completed ?? now, message, RUNNING],
      );
      if (count) {
        step.status = next;
        step.error_message = message ?? step.error_message;
      }
    }
  }

  /** A step running longer than its timeoutSeconds is stopped and fails. */
  private async enforceTimeouts(steps: StepRow[], now: Date): Promise<void> {
    for (const step of steps) {
      if (!step.timeout_seconds || !step.started_at || !RUNNING.includes(step.status)) continue;
      if (now.getTime() - new Date(step.started_at).getTime() < step.timeout_seconds * 1000) continue;
      const entry = this.running.get(step.id);
      if (entry && !entry.stoppedFor) {
        entry.stoppedFor = 'timeout';
        entry.task.stop();
      }
      if (step.step_type === 'RunProfile' && step.activity_id) {
        await cancelActivities(
          this.ds.manager,
          [step.activity_id],
          now,
          `Cancelled: the schedule step timed out after ${step.timeout_seconds} s.`,
        );
      }
      if (await this.endStep(step.id, StepStatus.Failed, `timed out after ${step.timeout_seconds} s`, now)) {
        step.status = StepStatus.Failed;
        step.error_message = `timed out after ${step.timeout_seconds} s`;
        this.logger.log({
          level: 'warning',
          message: `Schedule execution ${step.execution_id}: step ${step.step_index} '${step.name}' timed out after ${step.timeout_seconds} s and was stopped.`,
          scheduleExecutionId: step.execution_id,
        });
      }
    }
  }

  private async advance(execution: ExecutionRow, steps: StepRow[]): Promise<void> {
    if (execution.status === ExecutionStatus.Queued) {
      const now = this.clock.now();
      const { count } = await update(this.ds, `UPDATE schedule_execution SET status = $2, started_at = $3 WHERE id = $1 AND status = $4`, [
        execution.id,
        ExecutionStatus.InProgress,
        now,
        ExecutionStatus.Queued,
      ]);
      if (!count) return;
      execution.status = ExecutionStatus.InProgress;
      await this.ds.query(`UPDATE activity SET executed = $2, message = $3 WHERE id = $1 AND status = $4`, [
        execution.id,
        now,
        `Running (${new Set(steps.map((s) => s.step_index)).size} step index(es)).`,
        ActivityStatus.InProgress,
      ]);
      this.logger.log({
        level: 'information',
        message: `Schedule execution ${execution.id} ("${execution.schedule_name}") started.`,
        scheduleExecutionId: execution.id,
      });
    }
    let index = execution.current_step_index;
    for (;;) {
      const current = steps.filter((s) => s.step_index === index);
      if (current.some((s) => s.status === StepStatus.Pending)) {
        await this.startIndex(execution, index);
        return;
      }
      const decision = decideStepIndex(
        current.map((s) => ({
          stepIndex: s.step_index,
          name: s.name,
          status: s.status,
          errorMessage: s.error_message,
          continueOnFailure: s.continue_on_failure,
        })),
      );
      if (decision.running) return;
      if (decision.failure) {
        await this.finish(execution, ExecutionStatus.Failed, decision.failure, steps);
        return;
      }
      const later = steps.map((s) => s.step_index).filter((i) => i > index);
      if (!later.length) {
        const note = continuedFailuresNote(
          steps.map((s) => ({
            stepIndex: s.step_index,
            name: s.name,
            status: s.status,
            errorMessage: s.error_message,
            continueOnFailure: s.continue_on_failure,
          })),
        );
        await this.finish(execution, ExecutionStatus.Completed, note, steps);
        return;
      }
      const next = Math.min(...later);
      const { count } = await update(
        this.ds,
        `UPDATE schedule_execution SET current_step_index = $2 WHERE id = $1 AND status = $3 AND current_step_index = $4`,
        [execution.id, next, ExecutionStatus.InProgress, index],
      );
      if (!count) return;
      execution.current_step_index = index = next;
    }
  }

  /** Starts every Pending step of a step index together (under the execution's row lock, so a cancel cannot slip between). */
  private async startIndex(execution: ExecutionRow, index: number): Promise<void> {
    const now = this.clock.now();
    const started = await this.ds.transaction(async (m) => {
      const [row]: Array<{ status: string; cancel_requested: boolean }> = await m.query(
        `SELECT status, cancel_requested FROM schedule_execution WHERE id = $1 FOR UPDATE`,
        [execution.id],
      );
      if (!row || row.status !== ExecutionStatus.InProgress || row.cancel_requested) return [];
      return (
        await update<StepRow>(
          m,
          `UPDATE schedule_execution_step SET status = $3, started_at = $4 WHERE execution_id = $1 AND step_index = $2 AND status = $5 RETURNING ${STEP_COLUMNS}`,
          [execution.id, index, StepStatus.Queued, now, StepStatus.Pending],
        )
      ).rows;
    });
    if (!started.length) return;
    this.logger.log({
      level: 'information',
      message: `Schedule execution ${execution.id}: step index ${index} started (${started.map((s) => `'${s.name}'`).join(', ')}).`,
      scheduleExecutionId: execution.id,
      stepIndex: index,
    });
    await Promise.all(
      started.map((step) =>
        (step.step_type === 'RunProfile' ? this.launchRunProfile(execution, step, now) : this.launchLocal(execution, step)).catch(
          async (e: Error) => {
            this.logger.log({
              level: 'error',
              message: `Step '${step.name}' of schedule execution ${execution.id} could not start: ${e.message}`,
              error: e,
              scheduleExecutionId: execution.id,
            });
            await this.endStep(step.id, StepStatus.Failed, `the step could not start: ${e.message}`, this.clock.now());
          },
        ),
      ),
    );
  }

  private async launchRunProfile(execution: ExecutionRow, step: StepRow, now: Date): Promise<void> {
    if (!step.connected_system_id || !step.run_profile_id) {
      await this.endStep(step.id, StepStatus.Failed, 'the run profile of this step no longer exists.', now);
      return;
    }
    let activityId: string;
    try {
      ({ activityId } = await this.runProfiles.execute(step.connected_system_id, step.run_profile_id, this.initiatorOf(execution)));
    } catch (e) {
      await this.endStep(step.id, StepStatus.Failed, `the run profile could not start: ${(e as Error).message}`, this.clock.now());
      return;
    }
    // The execution's activity (same id as the execution) is the parent of the runs it starts.
    await this.ds.query(`UPDATE activity SET parent_activity_id = $2 WHERE id = $1 AND EXISTS (SELECT 1 FROM activity WHERE id = $2)`, [
      activityId,
      execution.id,
    ]);
    const { rows } = await update<{ status: string }>(
      this.ds,
      `UPDATE schedule_execution_step SET activity_id = $2, task_id = $2 WHERE id = $1 RETURNING status`,
      [step.id, activityId],
    );
    if (rows[0]?.status !== StepStatus.Queued) {
      // Cancelled or timed out while the run was being queued: the run must not go on.
      await cancelActivities(this.ds.manager, [activityId], this.clock.now(), 'Cancelled: the schedule step ended before the run started.');
      return;
    }
    step.activity_id = activityId;
    this.logger.log({
      level: 'information',
      message: `Schedule execution ${execution.id}: step ${step.step_index} '${step.name}' queued run-profile activity ${activityId}.`,
      scheduleExecutionId: execution.id,
      activityId,
    });
  }

  private async launchLocal(execution: ExecutionRow, step: StepRow): Promise<void> {
    const [definition]: Array<Record<string, string | null>> = step.step_id
      ? await this.ds.query(
          `SELECT id, step_type, executable_path, arguments, working_directory, script_path, sql_script_path, sql_connection_string FROM schedule_step WHERE id = $1`,
          [step.step_id],
        )
      : [];
    let task: StepTask;
    if (!definition) {
      task = failedTask('the step was removed from the schedule after this execution was queued.');
    } else {
      let connectionString: string | null = null;
      let problem: string | null = null;
      if (definition.sql_connection_string) {
        try {
          connectionString = this.secrets.openConnectionString(definition.id!, definition.sql_connection_string);
        } catch {
          problem = 'the stored connection string cannot be decrypted (was MERIDIAN_ENCRYPTION_KEY changed?).';
        }
      }
      task = problem
        ? failedTask(problem)
        : await launchLocalStep(
            {
              stepType: step.step_type,
              executablePath: definition.executable_path,
              arguments: definition.arguments,
              workingDirectory: definition.working_directory,
              scriptPath: definition.script_path,
              sqlScriptPath: definition.sql_script_path,
              sqlConnectionString: connectionString,
            },
            {
              scriptsRoot: this.config.scriptsRoot,
              // The allow-list of stepEnvironment picks PATH, HOME, LANG, LC_ALL, TZ and TMPDIR from here; nothing else passes.
              hostEnvironment: process.env,
              context: {
                scheduleId: execution.schedule_id,
                scheduleName: execution.schedule_name,
                executionId: execution.id,
                stepIndex: step.step_index,
                stepName: step.name,
                scriptsRoot: this.config.scriptsRoot,
              },
              log: this.stepLog(execution, step),
              killGraceMs: this.killGraceMs,
            },
          );
    }
    this.running.set(step.id, { executionId: execution.id, task, stoppedFor: null });
    const { count } = await update(
      this.ds,
      `UPDATE schedule_execution_step SET status = $2, process_id = $3 WHERE id = $1 AND status = $4`,
      [step.id, StepStatus.Processing, task.processId, StepStatus.Queued],
    );
    if (!count) {
      const entry = this.running.get(step.id)!;
      entry.stoppedFor ??= 'cancel';
      task.stop();
    } else if (task.processId) {
      this.logger.log({
        level: 'information',
        message: `Schedule execution ${execution.id}: step ${step.step_index} '${step.name}' started process ${task.processId}.`,
        scheduleExecutionId: execution.id,
        processId: task.processId,
      });
    }
    void task.done.then((outcome) => this.settle(execution, step, outcome));
  }

  /** Records how a step that ran here ended (unless it was already ended: cancelled, timed out…). */
  private async settle(execution: ExecutionRow, step: StepRow, outcome: StepOutcome): Promise<void> {
    const entry = this.running.get(step.id);
    this.running.delete(step.id);
    try {
      const status = outcome.ok ? StepStatus.Completed : entry?.stoppedFor === 'cancel' ? StepStatus.Cancelled : StepStatus.Failed;
      // A process stopped for its timeout ends with the timeout's reason, whichever write lands first.
      const errorMessage = entry?.stoppedFor === 'timeout' ? `timed out after ${step.timeout_seconds} s` : outcome.errorMessage;
      if (await this.endStep(step.id, status, errorMessage, this.clock.now())) {
        this.logger.log({
          level: outcome.ok ? 'information' : 'warning',
          message: `Schedule execution ${execution.id}: step ${step.step_index} '${step.name}' ${outcome.ok ? 'completed' : `failed: ${errorMessage}`}.`,
          scheduleExecutionId: execution.id,
          stepIndex: step.step_index,
        });
      }
      if (!this.hasTasks(execution.id)) {
        await this.ds.query(
          `UPDATE schedule_execution SET claimed_by = NULL, heartbeat_at = NULL WHERE id = $1 AND claimed_by = $2 AND status = ANY($3::text[])`,
          [execution.id, this.instanceId, FINISHED_EXECUTION_STATUSES],
        );
      }
    } catch (e) {
      this.logger.log({
        level: 'error',
        message: `Could not record the end of step '${step.name}' of schedule execution ${execution.id}: ${(e as Error).message}`,
        error: e,
      });
    }
  }

  private async finish(execution: ExecutionRow, status: ExecutionStatus, message: string | null, steps: StepRow[]): Promise<void> {
    const now = this.clock.now();
    const { count } = await update(
      this.ds,
      `UPDATE schedule_execution SET status = $2, completed_at = $3, error_message = $4, claimed_by = NULL, heartbeat_at = NULL WHERE id = $1 AND status = $5`,
      [execution.id, status, now, message, ExecutionStatus.InProgress],
    );
    if (!count) return;
    const activityStatus = executionActivityStatus(
      status,
      steps.map((s) => s.status),
    );
    const finishedSteps = steps.filter((s) => !RUNNING.includes(s.status) && s.status !== StepStatus.Pending).length;
    await this.ds.query(
      `UPDATE activity SET status = $2, completed = $3, message = $4, error_message = $5, objects_processed = $6,
              execution_time_ms = CASE WHEN executed IS NULL THEN NULL ELSE greatest(0, (extract(epoch FROM ($3::timestamptz - executed)) * 1000))::bigint END
        WHERE id = $1 AND status = $7`,
      [
        execution.id,
        activityStatus,
        now,
        status === ExecutionStatus.Completed ? (message ?? 'Completed.') : 'Failed.',
        status === ExecutionStatus.Failed ? message : null,
        finishedSteps,
        ActivityStatus.InProgress,
      ],
    );
    this.logger.log({
      level: status === ExecutionStatus.Completed && !message ? 'information' : 'warning',
      message: `Schedule execution ${execution.id} ("${execution.schedule_name}") ${status}${message ? `: ${message}` : '.'}`,
      scheduleExecutionId: execution.id,
    });
  }

  /** Ends a step that is still running (conditional: a finished step keeps its status). */
  private async endStep(stepId: string, status: StepStatus, message: string | null, now: Date): Promise<boolean> {
    const { count } = await update(
      this.ds,
      `UPDATE schedule_execution_step SET status = $2, completed_at = $3, error_message = $4 WHERE id = $1 AND status = ANY($5::text[])`,
      [stepId, status, now, message, RUNNING],
    );
    return count > 0;
  }

  private async release(executionId: string): Promise<void> {
    await this.ds.query(`UPDATE schedule_execution SET claimed_by = NULL, heartbeat_at = NULL WHERE id = $1 AND claimed_by = $2`, [
      executionId,
      this.instanceId,
    ]);
  }

  private hasTasks(executionId: string): boolean {
    return [...this.running.values()].some((r) => r.executionId === executionId);
  }

  private initiatorOf(execution: ExecutionRow): Initiator {
    if (execution.initiated_by_type === CRON_INITIATED_BY) return SCHEDULER_INITIATOR;
    return { type: execution.initiated_by_type as InitiatedByType, id: execution.initiated_by_id, name: execution.initiated_by_name };
  }

  private stepLog(execution: ExecutionRow, step: StepRow): StepLog {
    const label = `${execution.schedule_name} #${step.step_index} '${step.name}'`;
    const context = {
      scheduleExecutionId: execution.id,
      scheduleId: execution.schedule_id,
      stepIndex: step.step_index,
      stepName: step.name,
    };
    return {
      line: (stream, text) =>
        this.logger.log({ level: stream === 'stderr' ? 'warning' : 'information', message: `[${label}] ${text}`, ...context, stream }),
      info: (message) => this.logger.log({ level: 'information', message: `[${label}] ${message}`, ...context }),
      debug: (message) => this.logger.log({ level: 'debug', message: `[${label}] ${message}`, ...context }),
    };
  }
}
