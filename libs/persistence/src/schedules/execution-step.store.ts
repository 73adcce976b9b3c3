import { ExecutionStatus, RUNNING_STEP_STATUSES, StepStatus } from '@meridian/domain';
import { ManagerStatements } from './manager-statements';

/** A step of an execution as the engine runs it. */
export interface ExecutionStepRecord {
  id: string;
  executionId: string;
  /** The schedule step it copies; null once that step was removed from the schedule. */
  stepId: string | null;
  stepIndex: number;
  name: string;
  stepType: string;
  continueOnFailure: boolean;
  timeoutSeconds: number | null;
  connectedSystemId: number | null;
  runProfileId: number | null;
  status: StepStatus;
  startedAt: Date | null;
  errorMessage: string | null;
  activityId: string | null;
}

/** What a step that runs on the scheduler (a process or a SQL script) needs from its schedule step. */
export interface LocalStepDefinition {
  id: string;
  stepType: string;
  executablePath: string | null;
  arguments: string | null;
  workingDirectory: string | null;
  scriptPath: string | null;
  sqlScriptPath: string | null;
  /** Sealed. */
  sqlConnectionString: string | null;
}

/** One step to end, with its own message. */
export interface StepEnd {
  id: string;
  errorMessage: string | null;
}

/** A step's new status as its run-profile activity reports it. */
export interface StepFollow {
  id: string;
  status: StepStatus;
  /** Set when the status is a final one. */
  completedAt: Date | null;
  /** Kept when null. */
  errorMessage: string | null;
}

const COLUMNS = `id, execution_id AS "executionId", step_id AS "stepId", step_index AS "stepIndex", name, step_type AS "stepType",
                 continue_on_failure AS "continueOnFailure", timeout_seconds AS "timeoutSeconds", connected_system_id AS "connectedSystemId",
                 run_profile_id AS "runProfileId", status, started_at AS "startedAt", error_message AS "errorMessage", activity_id AS "activityId"`;

/**
 * `schedule_execution_step` rows while the engine runs them. Every status write is conditional on the
 * step still running, so a finished step (Cancelled above all) keeps its status.
 */
export class ExecutionStepStore extends ManagerStatements {
  async ofExecutions(executionIds: readonly string[]): Promise<ExecutionStepRecord[]> {
    if (!executionIds.length) return [];
    return this.rows<ExecutionStepRecord>(
      `SELECT ${COLUMNS} FROM schedule_execution_step WHERE execution_id = ANY($1::uuid[]) ORDER BY step_index, name, id`,
      [executionIds],
    );
  }

  /**
   * Starts (Queued) every Pending step of a step index together, under the execution's row lock, so a
   * cancel cannot slip between; nothing starts unless the execution is InProgress and no cancel was requested.
   */
  async startIndex(executionId: string, stepIndex: number, now: Date): Promise<ExecutionStepRecord[]> {
    return this.m.transaction(async (m) => {
      const store = new ExecutionStepStore(m);
      return store.startIndexLocked(executionId, stepIndex, now);
    });
  }

  private async startIndexLocked(executionId: string, stepIndex: number, now: Date): Promise<ExecutionStepRecord[]> {
    const execution = await this.row<{ status: ExecutionStatus; cancelRequested: boolean }>(
      `SELECT status, cancel_requested AS "cancelRequested" FROM schedule_execution WHERE id = $1 FOR UPDATE`,
      [executionId],
    );
    if (!execution || execution.status !== ExecutionStatus.InProgress || execution.cancelRequested) return [];
    return this.rows<ExecutionStepRecord>(
      `UPDATE schedule_execution_step SET status = $3, started_at = $4 WHERE execution_id = $1 AND step_index = $2 AND status = $5
       RETURNING ${COLUMNS}`,
      [executionId, stepIndex, StepStatus.Queued, now, StepStatus.Pending],
    );
  }

  /** Ends a step that is still running; answers whether it was. */
  async end(stepId: string, status: StepStatus, errorMessage: string | null, now: Date): Promise<boolean> {
    return (await this.endEach([{ id: stepId, errorMessage }], status, now)).length > 0;
  }

  /** Ends the steps that are still running, each with its message, in one statement; answers the ids ended. */
  async endEach(ends: readonly StepEnd[], status: StepStatus, now: Date): Promise<string[]> {
    if (!ends.length) return [];
    const rows = await this.rows<{ id: string }>(
      `UPDATE schedule_execution_step es SET status = $3, completed_at = $4, error_message = e.message
         FROM unnest($1::uuid[], $2::text[]) AS e(id, message)
        WHERE es.id = e.id AND es.status = ANY($5::text[]) RETURNING es.id`,
      [ends.map((e) => e.id), ends.map((e) => e.errorMessage), status, now, RUNNING_STEP_STATUSES],
    );
    return rows.map((r) => r.id);
  }

  /** Moves RunProfile steps to the status of their activity, in one statement; answers the ids changed. */
  async follow(follows: readonly StepFollow[]): Promise<string[]> {
    if (!follows.length) return [];
    const rows = await this.rows<{ id: string }>(
      `UPDATE schedule_execution_step es SET status = f.status, completed_at = coalesce(f.completed_at, es.completed_at),
              error_message = coalesce(f.message, es.error_message)
         FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::text[]) AS f(id, status, completed_at, message)
        WHERE es.id = f.id AND es.status = ANY($5::text[]) RETURNING es.id`,
      [
        follows.map((f) => f.id),
        follows.map((f) => f.status),
        follows.map((f) => f.completedAt),
        follows.map((f) => f.errorMessage),
        RUNNING_STEP_STATUSES,
      ],
    );
    return rows.map((r) => r.id);
  }

  /** A started step's process (or SQL script) runs: Queued → Processing; false when the step ended meanwhile. */
  async markProcessing(stepId: string, processId: number | null): Promise<boolean> {
    return (
      (await this.count(`UPDATE schedule_execution_step SET status = $2, process_id = $3 WHERE id = $1 AND status = $4`, [
        stepId,
        StepStatus.Processing,
        processId,
        StepStatus.Queued,
      ])) > 0
    );
  }

  /**
   * Inside the transaction that starts a RunProfile step's run: locks the execution (shared, so a cancel waits
   * until the run is linked, then finds and cancels it) and the step; answers whether the step is still Queued.
   */
  async lockQueued(executionId: string, stepId: string): Promise<boolean> {
    await this.rows(`SELECT 1 FROM schedule_execution WHERE id = $1 FOR SHARE`, [executionId]);
    const step = await this.row<{ status: StepStatus }>(`SELECT status FROM schedule_execution_step WHERE id = $1 FOR UPDATE`, [stepId]);
    return step?.status === StepStatus.Queued;
  }

  /**
   * Links a RunProfile step to the run it started, and the run to the execution's activity (its parent),
   * in one statement (under lockQueued, in the transaction that creates the run).
   */
  async linkRun(stepId: string, executionId: string, activityId: string): Promise<void> {
    await this.count(
      `WITH parent AS (
         UPDATE activity SET parent_activity_id = $3 WHERE id = $2 AND EXISTS (SELECT 1 FROM activity WHERE id = $3))
       UPDATE schedule_execution_step SET activity_id = $2, task_id = $2 WHERE id = $1`,
      [stepId, activityId, executionId],
    );
  }

  async localDefinition(stepId: string): Promise<LocalStepDefinition | null> {
    return this.row<LocalStepDefinition>(
      `SELECT id, step_type AS "stepType", executable_path AS "executablePath", arguments, working_directory AS "workingDirectory",
              script_path AS "scriptPath", sql_script_path AS "sqlScriptPath", sql_connection_string AS "sqlConnectionString"
         FROM schedule_step WHERE id = $1`,
      [stepId],
    );
  }
}
