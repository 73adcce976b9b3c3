import type { PoolClient, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';
import { copyEncoded, copyRows, CopyValue, EncodedCopy } from '../bulk/copy-rows';

/** What stores write and read through: a session, or writes queued to be sent on one later (QueuedWrites). */
export type SqlSession = Pick<BulkSession, 'rows' | 'row' | 'count' | 'copy' | 'copyEncoded' | 'stage' | 'transaction'>;

/**
 * One pooled PostgreSQL connection for a runner: plain SQL, COPY and transactions on the same client, so
 * set-based statements and bulk loads can be atomic together. Taken from TypeORM's pool (one pool per
 * process); `release()` gives it back. Counts every statement, so tests can prove a page costs a constant
 * number of statements.
 */
export class BulkSession {
  /** Statements sent on this session (COPY counts as one). */
  statements = 0;
  private inTransaction = false;

  private constructor(
    readonly client: PoolClient,
    private readonly releaseFn: (err?: unknown) => void,
  ) {}

  /** Takes a connection from the data source's pool. */
  static async open(ds: DataSource): Promise<BulkSession> {
    const [client, release] = await (
      ds.driver as unknown as { obtainMasterConnection(): Promise<[PoolClient, (err?: unknown) => void]> }
    ).obtainMasterConnection();
    return new BulkSession(client, release);
  }

  /** Runs `work` with a session and always releases it (a broken connection is discarded, not reused). */
  static async with<T>(ds: DataSource, work: (s: BulkSession) => Promise<T>): Promise<T> {
    const session = await BulkSession.open(ds);
    let failed: unknown;
    try {
      return await work(session);
    } catch (e) {
      failed = e;
      throw e;
    } finally {
      session.release(failed);
    }
  }

  /** Rows of a statement. */
  async rows<T extends QueryResultRow = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    this.statements++;
    const result = await this.client.query<T>(sql, params as unknown[]);
    return result.rows;
  }

  /** The first row of a statement, or null. */
  async row<T extends QueryResultRow = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<T | null> {
    return (await this.rows<T>(sql, params))[0] ?? null;
  }

  /** Rows affected by an INSERT / UPDATE / DELETE. */
  async count(sql: string, params: readonly unknown[] = []): Promise<number> {
    this.statements++;
    const result = await this.client.query(sql, params as unknown[]);
    return result.rowCount ?? 0;
  }

  /** COPY … FROM STDIN of rows into a table (see copyRows). */
  async copy(table: string, columns: readonly string[], rows: Iterable<CopyValue[]>): Promise<number> {
    this.statements++;
    return copyRows(this.client, table, columns, rows);
  }

  /** COPY … FROM STDIN of rows encoded ahead (encodeCopyRows). */
  async copyEncoded(table: string, columns: readonly string[], encoded: EncodedCopy): Promise<number> {
    this.statements++;
    await copyEncoded(this.client, table, columns, encoded.chunks);
    return encoded.rows;
  }

  /** Creates (once per connection) and empties a temporary staging table. */
  async stage(name: string, ddl: string): Promise<void> {
    await this.count(`CREATE TEMP TABLE IF NOT EXISTS ${name} (${ddl})`);
    await this.count(`TRUNCATE ${name}`);
  }

  /**
   * Runs `work` in one transaction (nested calls join the outer one). `page`: a page of a run, whose
   * commit need not wait for the write-ahead log to reach the disk (`synchronous_commit = off` for this
   * transaction only, sent with the `BEGIN`: no extra round trip). Such a commit is never torn or
   * reordered; a PostgreSQL crash can only lose the last fraction of a second of commits, which a run
   * survives by design (the run fails and the next run redoes what was lost: every run is safe to run
   * again). The run's end is written durably, and its commit flushes every page committed before it.
   */
  async transaction<T>(work: () => Promise<T>, commit: 'durable' | 'page' = 'durable'): Promise<T> {
    if (this.inTransaction) return work();
    await this.count(commit === 'page' ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
    this.inTransaction = true;
    try {
      const result = await work();
      await this.count('COMMIT');
      return result;
    } catch (e) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      this.inTransaction = false;
    }
  }

  release(err?: unknown): void {
    this.releaseFn(err instanceof Error ? err : undefined);
  }
}
