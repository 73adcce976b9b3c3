import { MigrationInterface, QueryRunner } from 'typeorm';

/** Schedules, their steps, executions and execution steps. */
export class Schedules1764000000000 implements MigrationInterface {
  name = 'Schedules1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE schedule (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        description text,
        trigger_type varchar(10) NOT NULL,
        pattern_type varchar(20) NOT NULL DEFAULT 'SpecificTimes',
        days_of_week varchar(20),
        run_times text,
        interval_value int,
        interval_unit varchar(10),
        interval_window_start varchar(5),
        interval_window_end varchar(5),
        cron_expression text,
        time_zone varchar(64) NOT NULL DEFAULT 'UTC',
        is_enabled boolean NOT NULL DEFAULT false,
        last_run_time timestamptz,
        next_run_time timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_schedule_name ON schedule (lower(name))`);
    await q.query(`CREATE INDEX ix_schedule_due ON schedule (next_run_time) WHERE is_enabled AND trigger_type = 'Cron'`);

    await q.query(`
      CREATE TABLE schedule_step (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        schedule_id uuid NOT NULL,
        step_index int NOT NULL,
        name varchar(300),
        execution_mode varchar(30) NOT NULL DEFAULT 'Sequential',
        step_type varchar(20) NOT NULL,
        continue_on_failure boolean NOT NULL DEFAULT false,
        timeout_seconds int,
        connected_system_id int,
        run_profile_id int,
        script_path text,
        arguments text,
        executable_path text,
        working_directory text,
        sql_connection_string text,
        sql_script_path text,
        created timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT schedule_step_schedule_fkey FOREIGN KEY (schedule_id) REFERENCES schedule (id) ON DELETE CASCADE,
        CONSTRAINT schedule_step_run_profile_fkey FOREIGN KEY (run_profile_id) REFERENCES connected_system_run_profile (id) ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX ix_schedule_step_schedule ON schedule_step (schedule_id, step_index)`);

    await q.query(`
      CREATE TABLE schedule_execution (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        schedule_id uuid NOT NULL,
        schedule_name varchar(200) NOT NULL,
        status varchar(20) NOT NULL,
        current_step_index int NOT NULL DEFAULT 0,
        total_steps int NOT NULL DEFAULT 0,
        due_at timestamptz,
        queued_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz,
        initiated_by_type varchar(20) NOT NULL,
        initiated_by_id uuid,
        initiated_by_name varchar(300),
        error_message text,
        cancel_requested boolean NOT NULL DEFAULT false,
        claimed_by varchar(200),
        heartbeat_at timestamptz,
        CONSTRAINT schedule_execution_schedule_fkey FOREIGN KEY (schedule_id) REFERENCES schedule (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_schedule_execution_due ON schedule_execution (schedule_id, due_at) WHERE due_at IS NOT NULL`);
    await q.query(`CREATE INDEX ix_schedule_execution_schedule ON schedule_execution (schedule_id, queued_at)`);
    await q.query(
      `CREATE INDEX ix_schedule_execution_active ON schedule_execution (status) WHERE status IN ('Queued', 'InProgress', 'Paused')`,
    );

    await q.query(`
      CREATE TABLE schedule_execution_step (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        execution_id uuid NOT NULL,
        step_id uuid,
        step_index int NOT NULL,
        name varchar(300) NOT NULL,
        step_type varchar(20) NOT NULL,
        execution_mode varchar(30) NOT NULL,
        continue_on_failure boolean NOT NULL DEFAULT false,
        timeout_seconds int,
        connected_system_id int,
        run_profile_id int,
        status varchar(30) NOT NULL DEFAULT 'Pending',
        task_id uuid,
        started_at timestamptz,
        completed_at timestamptz,
        error_message text,
        activity_id uuid,
        process_id int,
        CONSTRAINT schedule_execution_step_execution_fkey FOREIGN KEY (execution_id) REFERENCES schedule_execution (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_schedule_execution_step_execution ON schedule_execution_step (execution_id, step_index)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['schedule_execution_step', 'schedule_execution', 'schedule_step', 'schedule'])
      await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
