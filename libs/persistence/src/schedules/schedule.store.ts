import { ManagerStatements } from './manager-statements';

/** Step count and the latest execution (by queue time) of a schedule. */
export interface ScheduleStatsRow {
  id: string;
  stepCount: number;
  lastExecutionId: string | null;
  lastExecutionStatus: string | null;
  lastExecutionCompletedAt: Date | null;
}

/** What a RunProfile step may point at. */
export interface RunProfileTargetRow {
  id: number;
  connectedSystemId: number;
  name: string;
}

/** Rows of `schedule` as the API reads and checks them (entities carry the rest). */
export class ScheduleStore extends ManagerStatements {
  async total(): Promise<number> {
    return (await this.row<{ count: number }>(`SELECT count(*)::int AS count FROM schedule`))!.count;
  }

  /** Ids of one page of schedules, by name. */
  async pageIds(limit: number, offset: number): Promise<string[]> {
    const rows = await this.rows<{ id: string }>(`SELECT id FROM schedule ORDER BY lower(name), id LIMIT $1 OFFSET $2`, [limit, offset]);
    return rows.map((r) => r.id);
  }

  /** Step counts and latest executions of the schedules, in one statement. */
  async stats(ids: readonly string[]): Promise<ScheduleStatsRow[]> {
    if (!ids.length) return [];
    return this.rows<ScheduleStatsRow>(
      `SELECT s.id, (SELECT count(*)::int FROM schedule_step st WHERE st.schedule_id = s.id) AS "stepCount",
              le.id AS "lastExecutionId", le.status AS "lastExecutionStatus", le.completed_at AS "lastExecutionCompletedAt"
         FROM schedule s
         LEFT JOIN LATERAL (SELECT e.id, e.status, e.completed_at FROM schedule_execution e WHERE e.schedule_id = s.id
                             ORDER BY e.queued_at DESC, e.id DESC LIMIT 1) le ON true
        WHERE s.id = ANY($1::uuid[])`,
      [ids],
    );
  }

  /** The schedule that has this name (ignoring case), other than `exceptId`. */
  async idByName(name: string, exceptId: string | null): Promise<string | null> {
    const row = await this.row<{ id: string }>(
      `SELECT id FROM schedule WHERE lower(name) = lower($1) AND ($2::uuid IS NULL OR id <> $2) LIMIT 1`,
      [name, exceptId],
    );
    return row?.id ?? null;
  }

  /** How many steps and executions go with the schedule when it is deleted. */
  async dependents(id: string): Promise<{ steps: number; executions: number }> {
    return (await this.row<{ steps: number; executions: number }>(
      `SELECT (SELECT count(*)::int FROM schedule_step WHERE schedule_id = $1) AS steps,
              (SELECT count(*)::int FROM schedule_execution WHERE schedule_id = $1) AS executions`,
      [id],
    ))!;
  }

  /** Names of the connected systems that exist among the ids. */
  async connectedSystemNames(ids: readonly number[]): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    const rows = await this.rows<{ id: number; name: string }>(`SELECT id, name FROM connected_system WHERE id = ANY($1::int[])`, [ids]);
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** The run profiles that exist among the ids. */
  async runProfiles(ids: readonly number[]): Promise<Map<number, RunProfileTargetRow>> {
    if (!ids.length) return new Map();
    const rows = await this.rows<RunProfileTargetRow>(
      `SELECT id, connected_system_id AS "connectedSystemId", name FROM connected_system_run_profile WHERE id = ANY($1::int[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Locks a schedule for a manual run; null when it does not exist. */
  async lockForRun(id: string): Promise<{ id: string; name: string } | null> {
    return this.row(`SELECT id, name FROM schedule WHERE id = $1 FOR UPDATE`, [id]);
  }

  async setLastRunTime(id: string, at: Date): Promise<void> {
    await this.count(`UPDATE schedule SET last_run_time = $2 WHERE id = $1`, [id, at]);
  }
}
