import type { SqlRunner } from '../sql/sql-runner';

/** API key statements the entity repository cannot express. */
export class ApiKeyStore {
  constructor(private readonly db: SqlRunner) {}

  /** Records that a key was used, at most once a minute per key, so a busy key does not turn every read into a write. */
  async touchLastUsed(id: string): Promise<void> {
    await this.db.query(
      `UPDATE api_key SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
    );
  }

  /** Serialises the bootstrap key's reconciliation between replicas for this transaction. */
  async lockBootstrapKey(): Promise<void> {
    await this.db.query(`SELECT pg_advisory_xact_lock(hashtext('meridian:bootstrap-api-key'))`);
  }
}
