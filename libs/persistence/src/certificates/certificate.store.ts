import type { SqlRunner } from '../sql/sql-runner';

/** Trusted certificate statements the entity repository cannot express. */
export class CertificateStore {
  constructor(private readonly db: SqlRunner) {}

  /** PEMs of the enabled certificates that have not expired, oldest first. */
  async trustedPems(): Promise<string[]> {
    const rows = await this.db.query<Array<{ pem: string }>>(
      `SELECT pem FROM trusted_certificate WHERE is_enabled AND not_after > now() ORDER BY created, id`,
    );
    return rows.map((r) => r.pem);
  }
}
