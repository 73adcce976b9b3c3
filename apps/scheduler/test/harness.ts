import { INestApplicationContext } from '@nestjs/common';
import { nextRunTime, SchedulePattern } from '@meridian/domain';
import { ScheduleExecutionRunner, ScheduleExecutionsService } from '@meridian/application';
import { AppConfig, closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { createScheduler } from '../src/bootstrap';
import { LeaderService } from '../src/leader.service';
import { ScheduleDispatcher } from '../src/schedule-dispatcher.service';
import { ScheduleTickService } from '../src/schedule-tick.service';
import { SchedulerOptions } from '../src/scheduler.options';

/** A clock the test moves: schedule time passes without waiting. */
export class FakeClock {
  constructor(private t: number) {}
  readonly now = (): Date => new Date(this.t);
  set(iso: string | Date): void {
    this.t = new Date(iso).getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface SchedulerInstance {
  app: INestApplicationContext;
  leader: LeaderService;
  tick: ScheduleTickService;
  dispatcher: ScheduleDispatcher;
  runner: ScheduleExecutionRunner;
  executions: ScheduleExecutionsService;
  close(): Promise<void>;
}

/** One throwaway database, environment, scripts root and SQL client shared by the scheduler instances of a suite. */
export class SchedulerTestBed {
  db!: TestDatabase;
  env!: TestEnvironment;
  config!: AppConfig;
  logger!: Logger;
  sql!: Client;
  scriptsRoot!: string;
  private readonly instances: SchedulerInstance[] = [];

  static async start(label: string, overrides: Record<string, string> = {}): Promise<SchedulerTestBed> {
    const bed = new SchedulerTestBed();
    bed.db = await createTestDatabase(label);
    bed.scriptsRoot = mkdtempSync(join(tmpdir(), 'meridian-scripts-'));
    bed.env = createTestEnvironment(bed.db.url, { MERIDIAN_SCRIPTS_ROOT: bed.scriptsRoot, ...overrides });
    bed.config = loadConfig('scheduler', bed.env.env);
    bed.logger = createServiceLogger({ service: 'scheduler', logDir: bed.env.logDir, level: 'Debug', console: false });
    bed.sql = new Client({ connectionString: bed.db.url });
    await bed.sql.connect();
    return bed;
  }

  async instance(options: SchedulerOptions = {}): Promise<SchedulerInstance> {
    const app = await createScheduler(this.config, this.logger, {
      tickIntervalMs: 20,
      leaderIntervalMs: 50,
      killGraceMs: 1000,
      ...options,
    });
    let closed = false;
    const instance: SchedulerInstance = {
      app,
      leader: app.get(LeaderService),
      tick: app.get(ScheduleTickService),
      dispatcher: app.get(ScheduleDispatcher),
      runner: app.get(ScheduleExecutionRunner),
      executions: app.get(ScheduleExecutionsService),
      close: async () => {
        if (closed) return;
        closed = true;
        await app.close();
      },
    };
    this.instances.push(instance);
    return instance;
  }

  async close(): Promise<void> {
    for (const i of this.instances) await i.close().catch(() => undefined);
    await this.sql?.end().catch(() => undefined);
    if (this.logger) await closeLogger(this.logger);
    await this.env?.cleanup();
    await this.db?.drop();
    if (this.scriptsRoot) rmSync(this.scriptsRoot, { recursive: true, force: true });
  }

  /** Writes an executable script under the scripts root. */
  script(relative: string, body: string): string {
    const path = join(this.scriptsRoot, relative);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
    chmodSync(path, 0o755);
    return relative;
  }

  file(relative: string, body: string): string {
    const path = join(this.scriptsRoot, relative);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
    return relative;
  }

  read(relative: string): string {
    return readFileSync(join(this.scriptsRoot, relative), 'utf8');
  }

  /** Every line the scheduler logged so far (JSON entries). */
  logEntries(): Array<{ level: string; message: string; properties?: Record<string, unknown> }> {
    return readdirSync(this.env.logDir)
      .filter((f) => f.startsWith('scheduler-') && f.endsWith('.log'))
      .flatMap((f) =>
        readFileSync(join(this.env.logDir, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
  }

  /** Creates a schedule row (and its steps) directly; next_run_time is computed from the pattern when enabled and Cron. */
  async schedule(input: ScheduleInput, now?: Date): Promise<string> {
    const p: SchedulePattern = {
      triggerType: input.triggerType ?? 'Cron',
      patternType: input.patternType ?? 'Custom',
      daysOfWeek: input.daysOfWeek ?? null,
      runTimes: input.runTimes ?? null,
      intervalValue: input.intervalValue ?? null,
      intervalUnit: input.intervalUnit ?? null,
      intervalWindowStart: input.intervalWindowStart ?? null,
      intervalWindowEnd: input.intervalWindowEnd ?? null,
      cronExpression: input.cronExpression ?? null,
      timeZone: input.timeZone ?? 'UTC',
    };
    const enabled = input.isEnabled ?? true;
    const next = input.nextRunTime !== undefined ? input.nextRunTime : enabled && now ? nextRunTime(p, now) : null;
    const {
      rows: [row],
    } = await this.sql.query(
      `INSERT INTO schedule (name, trigger_type, pattern_type, days_of_week, run_times, interval_value, interval_unit, interval_window_start, interval_window_end,
                             cron_expression, time_zone, is_enabled, next_run_time)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
      [
        input.name,
        p.triggerType,
        p.patternType,
        p.daysOfWeek,
        p.runTimes,
        p.intervalValue,
        p.intervalUnit,
        p.intervalWindowStart,
        p.intervalWindowEnd,
        p.cronExpression,
        p.timeZone,
        enabled,
        next,
      ],
    );
    const steps = input.steps ?? [];
    for (const [i, s] of steps.entries()) {
      const sameIndexBefore = steps.slice(0, i).some((o) => o.stepIndex === s.stepIndex);
      await this.sql.query(
        `INSERT INTO schedule_step (schedule_id, step_index, name, execution_mode, step_type, continue_on_failure, timeout_seconds, connected_system_id, run_profile_id,
                                    script_path, arguments, executable_path, working_directory, sql_connection_string, sql_script_path, created)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, now() + make_interval(secs => $16))`,
        [
          row.id,
          s.stepIndex,
          s.name ?? null,
          sameIndexBefore ? 'ParallelWithPrevious' : 'Sequential',
          s.stepType,
          s.continueOnFailure ?? false,
          s.timeoutSeconds ?? null,
          s.connectedSystemId ?? null,
          s.runProfileId ?? null,
          s.scriptPath ?? null,
          s.arguments ?? null,
          s.executablePath ?? null,
          s.workingDirectory ?? null,
          s.sqlConnectionString ?? null,
          s.sqlScriptPath ?? null,
          i / 1000,
        ],
      );
    }
    return row.id;
  }

  /** A File connected system with a FullSynchronisation run profile, for RunProfile steps. */
  async runProfile(systemName: string): Promise<{ connectedSystemId: number; runProfileId: number }> {
    const {
      rows: [system],
    } = await this.sql.query(`INSERT INTO connected_system (name, connector_type, settings) VALUES ($1, 'File', '{}') RETURNING id`, [
      systemName,
    ]);
    const {
      rows: [profile],
    } = await this.sql.query(
      `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, 'Full sync', 'FullSynchronisation') RETURNING id`,
      [system.id],
    );
    return { connectedSystemId: system.id, runProfileId: profile.id };
  }

  async executionsOf(scheduleId: string): Promise<Array<Record<string, any>>> {
    const { rows } = await this.sql.query(`SELECT * FROM schedule_execution WHERE schedule_id = $1 ORDER BY queued_at, due_at`, [
      scheduleId,
    ]);
    return rows;
  }

  async stepsOf(executionId: string): Promise<Array<Record<string, any>>> {
    const { rows } = await this.sql.query(`SELECT * FROM schedule_execution_step WHERE execution_id = $1 ORDER BY step_index, name`, [
      executionId,
    ]);
    return rows;
  }

  async waitForExecution(id: string, statuses: string[], timeoutMs = 20_000): Promise<Record<string, any>> {
    return waitFor(async () => {
      const {
        rows: [row],
      } = await this.sql.query(`SELECT * FROM schedule_execution WHERE id = $1`, [id]);
      return row && statuses.includes(row.status) ? row : null;
    }, timeoutMs);
  }

  /** The single leader among running instances. */
  async leaderOf(instances: SchedulerInstance[]): Promise<SchedulerInstance> {
    return waitFor(async () => {
      const leaders = instances.filter((i) => i.leader.isLeader);
      return leaders.length === 1 ? leaders[0] : null;
    });
  }
}

export interface StepInput {
  stepIndex: number;
  stepType: 'RunProfile' | 'Executable' | 'SqlScript' | 'PowerShell';
  name?: string;
  continueOnFailure?: boolean;
  timeoutSeconds?: number;
  connectedSystemId?: number;
  runProfileId?: number;
  scriptPath?: string;
  arguments?: string;
  executablePath?: string;
  workingDirectory?: string;
  sqlConnectionString?: string;
  sqlScriptPath?: string;
}

export interface ScheduleInput {
  name: string;
  triggerType?: 'Cron' | 'Manual';
  patternType?: 'SpecificTimes' | 'Interval' | 'Custom';
  cronExpression?: string;
  daysOfWeek?: string;
  runTimes?: string;
  intervalValue?: number;
  intervalUnit?: 'Minutes' | 'Hours';
  intervalWindowStart?: string;
  intervalWindowEnd?: string;
  timeZone?: string;
  isEnabled?: boolean;
  nextRunTime?: Date | null;
  steps?: StepInput[];
}
