import { createConnection, Connection as MysqlConnection } from 'mysql2/promise';
import { Client } from 'pg';
import { isTransactionControl, splitSqlStatements, SqlDialect, SqlStatement } from './sql-statements';
import { StepLog, StepOutcome, StepTask } from './step-task';

export interface SqlScriptTaskOptions {
  /** The opened (clear) connection string: postgres://, postgresql://, mysql:// or mariadb://. */
  connectionString: string;
  script: string;
  log: StepLog;
  connectTimeoutMs?: number;
}

const EXCERPT = 200;

/** PostgreSQL or MySQL/MariaDB, from the connection string's scheme; null when it is neither. */
export function sqlDialectOf(connectionString: string): SqlDialect | null {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(connectionString)?.[1].toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  return null;
}

function excerpt(statement: string): string {
  const flat = statement.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

/** The connection a script runs on, behind one small interface for both engines. */
interface ScriptConnection {
  begin(): Promise<void>;
  run(statement: string): Promise<number | null>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Cancels the running statement from a second connection, then closes this one. */
  cancel(): Promise<void>;
  close(): Promise<void>;
}

async function openPostgres(connectionString: string, timeoutMs: number): Promise<ScriptConnection> {
  const client = new Client({ connectionString, application_name: 'meridian-schedule-step', connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  await client.connect();
  const backendPid = (client as unknown as { processID: number }).processID;
  return {
    begin: async () => {
      await client.query('BEGIN');
    },
    run: async (sql) => (await client.query(sql)).rowCount ?? null,
    commit: async () => {
      await client.query('COMMIT');
    },
    rollback: async () => {
      await client.query('ROLLBACK');
    },
    cancel: async () => {
      const killer = new Client({
        connectionString,
        application_name: 'meridian-schedule-step-cancel',
        connectionTimeoutMillis: timeoutMs,
      });
      killer.on('error', () => undefined);
      try {
        await killer.connect();
        await killer.query('SELECT pg_cancel_backend($1)', [backendPid]);
      } finally {
        await killer.end().catch(() => undefined);
      }
    },
    close: async () => {
      await client.end().catch(() => undefined);
    },
  };
}

async function openMysql(connectionString: string, timeoutMs: number): Promise<ScriptConnection> {
  const uri = connectionString.replace(/^mariadb:/i, 'mysql:');
  const connection: MysqlConnection = await createConnection({ uri, connectTimeout: timeoutMs, multipleStatements: false });
  connection.on('error', () => undefined);
  return {
    begin: async () => {
      await connection.query('START TRANSACTION');
    },
    run: async (sql) => {
      const [result] = await connection.query(sql);
      return typeof (result as { affectedRows?: unknown }).affectedRows === 'number'
        ? (result as { affectedRows: number }).affectedRows
        : null;
    },
    commit: async () => {
      await connection.query('COMMIT');
    },
    rollback: async () => {
      await connection.query('ROLLBACK');
    },
    cancel: async () => {
      const killer = await createConnection({ uri, connectTimeout: timeoutMs });
      killer.on('error', () => undefined);
      try {
        await killer.query(`KILL QUERY ${Number(connection.threadId)}`);
      } finally {
        await killer.end().catch(() => undefined);
      }
    },
    close: async () => {
      await connection.end().catch(() => connection.destroy());
    },
  };
}

/** Connection errors can echo the URL; never let a password reach a step's message or the log. */
function withoutSecrets(message: string, connectionString: string): string {
  let text = message;
  try {
    const url = new URL(connectionString);
    if (url.password) text = text.split(url.password).join('*****').split(decodeURIComponent(url.password)).join('*****');
  } catch {
    // not a URL: nothing to hide beyond the string itself
  }
  return text.split(connectionString).join('[connection string]');
}

/**
 * Runs a SQL script file's statements one by one in ONE transaction on PostgreSQL or MySQL/MariaDB.
 * A failing statement rolls everything back and the step fails naming the statement (number, line
 * and text). Stopping cancels the running statement and rolls back.
 */
export function startSqlScriptTask(options: SqlScriptTaskOptions): StepTask {
  let connection: ScriptConnection | null = null;
  let stopped = false;
  const timeoutMs = options.connectTimeoutMs ?? 10_000;

  const run = async (): Promise<StepOutcome> => {
    const dialect = sqlDialectOf(options.connectionString);
    if (!dialect)
      return { ok: false, errorMessage: 'the connection string must be a postgres://, postgresql://, mysql:// or mariadb:// URL.' };
    let statements: SqlStatement[];
    try {
      statements = splitSqlStatements(options.script, dialect);
    } catch (e) {
      return { ok: false, errorMessage: `the SQL script cannot be read: ${(e as Error).message}` };
    }
    const control = statements.find((s) => isTransactionControl(s.text, dialect));
    if (control) {
      return {
        ok: false,
        errorMessage:
          `statement ${control.number} (line ${control.line}) controls the transaction (${excerpt(control.text)}); ` +
          'Meridian runs the whole script in one transaction, so scripts must not begin, commit or roll back themselves. Nothing was run.',
      };
    }
    if (!statements.length) return { ok: true, errorMessage: null };
    try {
      connection =
        dialect === 'postgres'
          ? await openPostgres(options.connectionString, timeoutMs)
          : await openMysql(options.connectionString, timeoutMs);
    } catch (e) {
      return {
        ok: false,
        errorMessage: `could not connect to the ${dialect === 'postgres' ? 'PostgreSQL' : 'MySQL/MariaDB'} database: ${withoutSecrets((e as Error).message, options.connectionString)}`,
      };
    }
    const db = connection;
    try {
      if (stopped) return { ok: false, errorMessage: 'stopped before the script started.' };
      await db.begin();
      for (const statement of statements) {
        if (stopped) {
          await db.rollback().catch(() => undefined);
          return { ok: false, errorMessage: `stopped before statement ${statement.number}; the script was rolled back.` };
        }
        try {
          const rows = await db.run(statement.text);
          options.log.debug(`statement ${statement.number} (line ${statement.line}) done${rows === null ? '' : `: ${rows} row(s)`}`);
        } catch (e) {
          await db.rollback().catch(() => undefined);
          const reason = withoutSecrets((e as Error).message, options.connectionString);
          return {
            ok: false,
            errorMessage: `statement ${statement.number} (line ${statement.line}) failed: ${reason} — in: ${excerpt(statement.text)}. The script was rolled back.`,
          };
        }
      }
      await db.commit();
      options.log.info(`${statements.length} statement(s) committed`);
      return { ok: true, errorMessage: null };
    } catch (e) {
      await db.rollback().catch(() => undefined);
      return {
        ok: false,
        errorMessage: `the script's transaction failed: ${withoutSecrets((e as Error).message, options.connectionString)}. The script was rolled back.`,
      };
    } finally {
      await db.close();
    }
  };

  const done = run().catch((e: unknown) => ({
    ok: false,
    errorMessage: `the SQL script failed: ${withoutSecrets((e as Error).message, options.connectionString)}`,
  }));
  return {
    processId: null,
    done,
    stop() {
      if (stopped) return;
      stopped = true;
      void connection?.cancel().catch(() => undefined);
    },
  };
}
