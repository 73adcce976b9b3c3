import pg from 'pg';
import type { QueryResultRow } from 'pg';
import { CopyChunker, CopyValue, EncodedCopy } from '../bulk/copy-rows';
import type { SqlSession } from './bulk-session';

/** pg's own conversion of a parameter to what it sends (arrays to array literals, dates, JSON), done ahead. */
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

/**
 * Writes encoded now and sent later, in order, on a session (`sendOn`): COPY rows are encoded and
 * parameters converted when a store writes, so sending costs the worker little. A synchronisation page
 * decided while the page before it is written encodes its writes then (docs/engine.md, "Per page").
 * Only writes: nothing is read through it, and a write answers no row count.
 */
export class QueuedWrites implements SqlSession {
  private readonly steps: Array<(s: SqlSession) => Promise<unknown>> = [];

  async rows<T extends QueryResultRow = Record<string, unknown>>(): Promise<T[]> {
    throw new Error('QueuedWrites: writes are queued; nothing can be read through them.');
  }

  async row<T extends QueryResultRow = Record<string, unknown>>(): Promise<T | null> {
    return (await this.rows<T>())[0] ?? null;
  }

  async transaction<T>(): Promise<T> {
    throw new Error('QueuedWrites: writes are sent inside the transaction of the session that sends them.');
  }

  /** Queues a statement; answers 0 (nothing ran yet). */
  async count(sql: string, params: readonly unknown[] = []): Promise<number> {
    const converted = params.map((p) => prepareValue(p));
    this.steps.push((s) => s.count(sql, converted));
    return 0;
  }

  /**
   * Encodes the rows now and queues their COPY; answers the number of rows. Lets other work of the worker
   * run every 32 rows (the page being written meanwhile waits for the worker to send each of its statements).
   */
  async copy(table: string, columns: readonly string[], rows: Iterable<CopyValue[]>): Promise<number> {
    const chunker = new CopyChunker(columns.length);
    const chunks: string[] = [];
    for (const row of rows) {
      const chunk = chunker.add(row);
      if (chunk) chunks.push(chunk);
      if (chunker.rows % 32 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const rest = chunker.take();
    if (rest) chunks.push(rest);
    return this.copyEncoded(table, columns, { chunks, rows: chunker.rows });
  }

  async copyEncoded(table: string, columns: readonly string[], encoded: EncodedCopy): Promise<number> {
    this.steps.push((s) => s.copyEncoded(table, columns, encoded));
    return encoded.rows;
  }

  async stage(name: string, ddl: string): Promise<void> {
    this.steps.push((s) => s.stage(name, ddl));
  }

  /** Sends the queued writes on `session`, in the order they were queued (once). */
  async sendOn(session: SqlSession): Promise<void> {
    for (const step of this.steps.splice(0)) await step(session);
  }
}
