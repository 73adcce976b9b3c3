import { scheduleStepSecretContext } from '@meridian/application';
import { SecretBox } from '@meridian/platform';
import { createTestDatabase, TestDatabase, waitFor } from '@meridian/testing';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { SchedulerInstance, SchedulerTestBed } from './harness';

/** MariaDB on this machine (root, no password); the suite creates and drops its own database. */
const MYSQL = { host: '127.0.0.1', port: '3306', user: 'root' };

function mysql(database: string | null, sql: string): string {
  return execFileSync(
    'mysql',
    ['-h', MYSQL.host, '-P', MYSQL.port, '-u', MYSQL.user, '--batch', '--skip-column-names', ...(database ? [database] : []), '-e', sql],
    { encoding: 'utf8' },
  ).trim();
}

describe('SqlScript steps (real PostgreSQL and MariaDB)', () => {
  let bed: SchedulerTestBed;
  let s: SchedulerInstance;
  let target: TestDatabase;
  let pg: Client;
  const mysqlDb = `meridian_sqlstep_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    bed = await SchedulerTestBed.start('sqlsteps');
    target = await createTestDatabase('sqltarget', false);
    pg = new Client({ connectionString: target.url });
    await pg.connect();
    await pg.query(`CREATE TABLE account (id int PRIMARY KEY, name text NOT NULL, active boolean NOT NULL DEFAULT true)`);
    mysql(null, `CREATE DATABASE ${mysqlDb}`);
    mysql(mysqlDb, 'CREATE TABLE account (id int PRIMARY KEY, name varchar(100) NOT NULL, active boolean NOT NULL DEFAULT true)');
    s = await bed.instance();
    await waitFor(async () => s.leader.isLeader);
  });

  afterAll(async () => {
    await pg?.end().catch(() => undefined);
    try {
      mysql(null, `DROP DATABASE IF EXISTS ${mysqlDb}`);
    } catch {
      // MariaDB may be unreachable; nothing to drop then
    }
    await target?.drop();
    await bed?.close();
  });

  /** A schedule with one SqlScript step whose connection string is sealed for that step, as the schedules API stores it. */
  async function sqlSchedule(
    name: string,
    connectionString: string,
    scriptPath: string,
    extra: { timeoutSeconds?: number } = {},
  ): Promise<string> {
    const scheduleId = await bed.schedule({
      name,
      triggerType: 'Manual',
      isEnabled: false,
      steps: [{ stepIndex: 0, stepType: 'SqlScript', name: 'script', sqlScriptPath: scriptPath, ...extra }],
    });
    const {
      rows: [step],
    } = await bed.sql.query(`SELECT id FROM schedule_step WHERE schedule_id = $1`, [scheduleId]);
    const sealed = new SecretBox(bed.config).seal(connectionString, scheduleStepSecretContext(step.id));
    await bed.sql.query(`UPDATE schedule_step SET sql_connection_string = $2 WHERE id = $1`, [step.id, sealed]);
    return scheduleId;
  }

  async function run(scheduleId: string) {
    const view = await s.executions.startManual(scheduleId, { type: 'ApiKey' as never, id: null, name: 'CI' });
    const execution = await bed.waitForExecution(view.id, ['Completed', 'Failed', 'Cancelled']);
    const [step] = await bed.stepsOf(view.id);
    return { execution, step };
  }

  describe('PostgreSQL', () => {
    it('runs the script in one transaction', async () => {
      bed.file(
        'pg/ok.sql',
        `-- load accounts
INSERT INTO account (id, name) VALUES (1, 'Ada'), (2, 'Grace');
UPDATE account SET name = 'Ada; Lovelace' WHERE id = 1;
DO $$ BEGIN PERFORM 1; END $$;
`,
      );
      const { execution, step } = await run(await sqlSchedule('pg ok', target.url, 'pg/ok.sql'));
      expect(execution.status).toBe('Completed');
      expect(step).toMatchObject({ status: 'Completed', error_message: null, process_id: null });
      expect((await pg.query(`SELECT id, name FROM account ORDER BY id`)).rows).toEqual([
        { id: 1, name: 'Ada; Lovelace' },
        { id: 2, name: 'Grace' },
      ]);
    });

    it('rolls back everything when a statement fails and names the statement', async () => {
      bed.file(
        'pg/bad.sql',
        `INSERT INTO account (id, name) VALUES (10, 'Linus');
UPDATE account SET active = false;

INSERT INTO acount (id, name)
  VALUES (11, 'typo');
INSERT INTO account (id, name) VALUES (12, 'never');
`,
      );
      const { execution, step } = await run(await sqlSchedule('pg bad', target.url, 'pg/bad.sql'));
      expect(step.error_message).toBe(
        'statement 3 (line 4) failed: relation "acount" does not exist — in: INSERT INTO acount (id, name) VALUES (11, \'typo\'). The script was rolled back.',
      );
      expect(execution).toMatchObject({ status: 'Failed', error_message: `Step 0 'script' failed: ${step.error_message}` });
      expect((await pg.query(`SELECT count(*)::int AS n FROM account WHERE id >= 10 OR NOT active`)).rows[0].n).toBe(0);
    });

    it('refuses scripts that control the transaction themselves, before running anything', async () => {
      bed.file('pg/commit.sql', `INSERT INTO account (id, name) VALUES (20, 'x');\nCOMMIT;\n`);
      const { step } = await run(await sqlSchedule('pg commit', target.url, 'pg/commit.sql'));
      expect(step.error_message).toMatch(/^statement 2 \(line 2\) controls the transaction \(COMMIT\); .* Nothing was run\.$/);
      expect((await pg.query(`SELECT count(*)::int AS n FROM account WHERE id = 20`)).rows[0].n).toBe(0);
    });

    it('cancels a statement that runs past timeoutSeconds on the server and rolls back', async () => {
      bed.file('pg/slow.sql', `INSERT INTO account (id, name) VALUES (30, 'slow');\nSELECT pg_sleep(60);\n`);
      const { execution, step } = await run(await sqlSchedule('pg slow', target.url, 'pg/slow.sql', { timeoutSeconds: 1 }));
      expect(execution.error_message).toBe("Step 0 'script' failed: timed out after 1 s");
      expect(step.status).toBe('Failed');
      await waitFor(
        async () =>
          (await pg.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'meridian-schedule-step'`)).rows[0]
            .n === 0,
      );
      expect((await pg.query(`SELECT count(*)::int AS n FROM account WHERE id = 30`)).rows[0].n).toBe(0);
    });

    it('fails clearly when the database cannot be reached, without showing the password', async () => {
      bed.file('pg/any.sql', 'SELECT 1;');
      const { step } = await run(await sqlSchedule('pg down', 'postgres://meridian:s3cret-pw@127.0.0.1:1/nowhere', 'pg/any.sql'));
      expect(step.error_message).toMatch(/^could not connect to the PostgreSQL database: /);
      expect(step.error_message).not.toContain('s3cret-pw');
    });
  });

  describe('MariaDB', () => {
    it('runs the script in one transaction', async () => {
      bed.file(
        'my/ok.sql',
        `# load accounts
INSERT INTO account (id, name) VALUES (1, 'Ada'), (2, 'Grace');
UPDATE account SET name = 'it''s; fine' WHERE id = 2;
`,
      );
      const { execution } = await run(await sqlSchedule('my ok', `mysql://root@127.0.0.1:3306/${mysqlDb}`, 'my/ok.sql'));
      expect(execution.status).toBe('Completed');
      expect(mysql(mysqlDb, 'SELECT id, name FROM account ORDER BY id')).toBe("1\tAda\n2\tit's; fine");
    });

    it('rolls back everything when a statement fails and names the statement (mariadb:// URL)', async () => {
      bed.file(
        'my/bad.sql',
        `INSERT INTO account (id, name) VALUES (10, 'Linus');
UPDATE account SET active = false;
INSERT INTO account (id, name) VALUES (1, 'duplicate');
`,
      );
      const { execution, step } = await run(await sqlSchedule('my bad', `mariadb://root@127.0.0.1:3306/${mysqlDb}`, 'my/bad.sql'));
      expect(execution.status).toBe('Failed');
      expect(step.error_message).toBe(
        "statement 3 (line 3) failed: Duplicate entry '1' for key 'PRIMARY' — in: INSERT INTO account (id, name) VALUES (1, 'duplicate'). The script was rolled back.",
      );
      expect(mysql(mysqlDb, 'SELECT count(*) FROM account WHERE id = 10 OR NOT active')).toBe('0');
    });

    it('runs stored-program definitions with a DELIMITER line', async () => {
      bed.file(
        'my/proc.sql',
        `DROP PROCEDURE IF EXISTS add_account;
DELIMITER //
CREATE PROCEDURE add_account(IN p_id int, IN p_name varchar(100))
BEGIN
  INSERT INTO account (id, name) VALUES (p_id, p_name);
  UPDATE account SET active = true WHERE id = p_id;
END//
DELIMITER ;
CALL add_account(40, 'Proc');
`,
      );
      const { execution } = await run(await sqlSchedule('my proc', `mysql://root@127.0.0.1:3306/${mysqlDb}`, 'my/proc.sql'));
      expect(execution.status).toBe('Completed');
      expect(mysql(mysqlDb, 'SELECT name FROM account WHERE id = 40')).toBe('Proc');
    });

    it('cancels a statement that runs past timeoutSeconds', async () => {
      bed.file('my/slow.sql', `INSERT INTO account (id, name) VALUES (50, 'slow');\nSELECT SLEEP(60);\n`);
      const { execution } = await run(
        await sqlSchedule('my slow', `mysql://root@127.0.0.1:3306/${mysqlDb}`, 'my/slow.sql', { timeoutSeconds: 1 }),
      );
      expect(execution.error_message).toBe("Step 0 'script' failed: timed out after 1 s");
      await waitFor(
        async () => mysql(null, `SELECT count(*) FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(60)%'`) === '0',
      );
      expect(mysql(mysqlDb, 'SELECT count(*) FROM account WHERE id = 50')).toBe('0');
    });
  });
});
