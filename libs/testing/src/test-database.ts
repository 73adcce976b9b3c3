import { ensureDatabase, runMigrations } from '@meridian/persistence';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const TEST_POSTGRES_URL = process.env.MERIDIAN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.MERIDIAN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates a throwaway database with every migration applied; `drop()` removes it. */
export async function createTestDatabase(label = 'test', migrate = true): Promise<TestDatabase> {
  const name = `meridian_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(6).toString('hex')}`;
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  await ensureDatabase(url.toString());
  if (migrate) await runMigrations(url.toString());
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const admin = new Client({ connectionString: TEST_POSTGRES_URL });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
