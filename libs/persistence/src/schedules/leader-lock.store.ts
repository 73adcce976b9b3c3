import { Client } from 'pg';

/**
 * A PostgreSQL session advisory lock held on a dedicated connection: whoever holds it leads. Losing the
 * connection loses the lock (`onLost` is called); the holder then opens a new store and competes again.
 */
export class LeaderLockStore {
  private constructor(private readonly client: Client) {}

  static async connect(databaseUrl: string, onLost: (error: Error) => void): Promise<LeaderLockStore> {
    const client = new Client({
      connectionString: databaseUrl,
      application_name: 'meridian-scheduler-leader',
      connectionTimeoutMillis: 5000,
    });
    client.on('error', onLost);
    await client.connect();
    return new LeaderLockStore(client);
  }

  /** Takes the lock unless another session holds it; answers whether this session holds it now. */
  async tryAcquire(key: number): Promise<boolean> {
    const { rows } = await this.client.query<{ acquired: boolean }>('SELECT pg_try_advisory_lock($1) AS acquired', [key]);
    return rows[0].acquired;
  }

  /** Proves the connection (and so the lock) is still there; throws when it is not. */
  async verify(): Promise<void> {
    await this.client.query('SELECT 1');
  }

  /** Closes the connection, which releases the lock. */
  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
