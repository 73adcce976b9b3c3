import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ExecutionStepRecord, ExecutionStepStore, RunningExecutionRecord } from '@meridian/persistence';
import { APP_CONFIG, AppConfig, Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { StepSecrets } from '../step-secrets';
import { launchLocalStep } from '../steps/local-step.launcher';
import { failedTask, StepLog, StepTask } from '../steps/step-task';
import { SCHEDULE_ENGINE_OPTIONS, ScheduleEngineOptions } from './schedule-engine.options';

/** The processes (Executable, PowerShell) and SQL scripts of steps that run on the scheduler, from their schedule step. */
@Injectable()
export class LocalStepTasks {
  private readonly steps: ExecutionStepStore;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly secrets: StepSecrets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SCHEDULE_ENGINE_OPTIONS) private readonly options: ScheduleEngineOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.steps = new ExecutionStepStore(ds.manager);
  }

  /** Starts the process or SQL script of a step; a step that cannot start gets a task that failed with the reason. */
  async start(execution: RunningExecutionRecord, step: ExecutionStepRecord): Promise<StepTask> {
    const definition = step.stepId ? await this.steps.localDefinition(step.stepId) : null;
    if (!definition) return failedTask('the step was removed from the schedule after this execution was queued.');
    let connectionString: string | null = null;
    if (definition.sqlConnectionString) {
      try {
        connectionString = this.secrets.openConnectionString(definition.id, definition.sqlConnectionString);
      } catch {
        return failedTask('the stored connection string cannot be decrypted (was MERIDIAN_ENCRYPTION_KEY changed?).');
      }
    }
    return launchLocalStep(
      {
        stepType: step.stepType,
        executablePath: definition.executablePath,
        arguments: definition.arguments,
        workingDirectory: definition.workingDirectory,
        scriptPath: definition.scriptPath,
        sqlScriptPath: definition.sqlScriptPath,
        sqlConnectionString: connectionString,
      },
      {
        scriptsRoot: this.config.scriptsRoot,
        // The allow-list of stepEnvironment picks PATH, HOME, LANG, LC_ALL, TZ and TMPDIR from here; nothing else passes.
        hostEnvironment: process.env,
        context: {
          scheduleId: execution.scheduleId,
          scheduleName: execution.scheduleName,
          executionId: execution.id,
          stepIndex: step.stepIndex,
          stepName: step.name,
          scriptsRoot: this.config.scriptsRoot,
        },
        log: this.stepLog(execution, step),
        killGraceMs: this.options.killGraceMs,
      },
    );
  }

  private stepLog(execution: RunningExecutionRecord, step: ExecutionStepRecord): StepLog {
    const label = `${execution.scheduleName} #${step.stepIndex} '${step.name}'`;
    const context = {
      scheduleExecutionId: execution.id,
      scheduleId: execution.scheduleId,
      stepIndex: step.stepIndex,
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
