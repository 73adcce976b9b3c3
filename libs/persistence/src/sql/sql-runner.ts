/** What both a TypeORM DataSource and an EntityManager (a transaction's included) offer: plain SQL. */
export interface SqlRunner {
  query<T = any>(sql: string, params?: unknown[]): Promise<T>;
}

/**
 * What TypeORM answers for an UPDATE or DELETE on PostgreSQL: the rows of its RETURNING clause (empty
 * without one) and how many rows it touched.
 */
export type WriteResult<T = never> = [T[], number];

/** Rows touched by an UPDATE or DELETE sent through `query()`. */
export function affectedRows(result: WriteResult<unknown>): number {
  return Number(result[1]) || 0;
}

/** Rows an UPDATE or DELETE … RETURNING sent through `query()` gave back. */
export function returnedRows<T>(result: WriteResult<T>): T[] {
  return result[0];
}

/** Sends an UPDATE or DELETE and answers how many rows it touched. */
export async function execute(runner: SqlRunner, sql: string, params: unknown[] = []): Promise<number> {
  return affectedRows(await runner.query<WriteResult<unknown>>(sql, params));
}

/** Whether the database answers a trivial statement (readiness). */
export async function pingDatabase(runner: SqlRunner): Promise<void> {
  await runner.query('SELECT 1');
}
