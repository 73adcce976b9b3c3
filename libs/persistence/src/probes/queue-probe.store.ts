import { execute, SqlRunner } from '../sql/sql-runner';

/** Queue probe statements the entity repository cannot express. */
export class QueueProbeStore {
  constructor(private readonly db: SqlRunner) {}

  /** Marks a probe processed by `worker`; answers false when it already was (a repeated delivery). */
  async complete(id: string, worker: string): Promise<boolean> {
    return (
      (await execute(this.db, `UPDATE queue_probe SET processed_at = now(), processed_by = $2 WHERE id = $1 AND processed_at IS NULL`, [
        id,
        worker,
      ])) > 0
    );
  }
}
