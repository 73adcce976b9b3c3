import { waitFor } from '@meridian/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const CS = '/api/v1/synchronisation/connected-systems';

/**
 * A database connection that PostgreSQL terminates under a request (a restart, an administrator, a
 * failover): a read runs once more on a fresh connection and answers; a write is not run twice and
 * answers 503 with Retry-After.
 */
describe('requests whose database connection breaks under them', () => {
  let h: WebHarness;
  let admin: Client;

  beforeAll(async () => {
    h = await startWebApp({}, { highRateLimits: true });
    admin = new Client({ connectionString: h.db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await h?.close();
  });

  /**
   * Holds an exclusive lock on the table, starts the request (which waits for the lock), terminates the
   * web process's backend that waits, then lets the lock go. Resolves to the answer.
   */
  async function terminatedWhileWaiting(
    table: string,
    send: () => Promise<{ status: number; body: any; headers: Record<string, string> }>,
  ) {
    const locker = new Client({ connectionString: h.db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      const answer = send();
      const waiting = await waitFor(
        async () =>
          (
            await admin.query<{ pid: number }>(
              `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
            )
          ).rows[0] ?? null,
        10_000,
        20,
      );
      await admin.query('SELECT pg_terminate_backend($1)', [waiting.pid]);
      await locker.query('ROLLBACK');
      return await answer;
    } finally {
      await locker.end();
    }
  }

  const logLines = () =>
    readdirSync(h.env.logDir)
      .filter((f) => f.startsWith('web-'))
      .flatMap((f) => readFileSync(join(h.env.logDir, f), 'utf8').split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l));

  it('a read runs once more on a fresh connection and answers 200', async () => {
    await h.http
      .post(CS)
      .set('X-Api-Key', h.adminKey)
      .send({ name: 'Before', connectorType: 'File', settings: { filePath: 'a.csv', mode: 'Import', objectType: 'person' } })
      .expect(201);
    const res = await terminatedWhileWaiting('connected_system', () =>
      h.http
        .get(CS)
        .set('X-Api-Key', h.adminKey)
        .then((r) => r),
    );
    expect(res.status).toBe(200);
    expect(res.body.map((s: { name: string }) => s.name)).toContain('Before');
    await waitFor(async () =>
      logLines().some((l) => l.level === 'Debug' && /the database connection failed; reading once more/.test(l.message)),
    );
  });

  it('a write is not run again: 503 with Retry-After naming the database, and nothing written', async () => {
    const earlier = logLines().length;
    const res = await terminatedWhileWaiting('connected_system', () =>
      h.http
        .post(CS)
        .set('X-Api-Key', h.adminKey)
        .send({ name: 'During', connectorType: 'File', settings: { filePath: 'a.csv', mode: 'Import', objectType: 'person' } })
        .then((r) => r),
    );
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database (PostgreSQL) is unavailable; try again later.',
      errorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      path: CS,
    });
    expect((await admin.query(`SELECT count(*)::int AS n FROM connected_system WHERE name = 'During'`)).rows[0].n).toBe(0);
    // The outage is one warning without a stack, and the next authenticated request ends it.
    await h.http.get(CS).set('X-Api-Key', h.adminKey).expect(200);
    const lines = await waitFor(async () => {
      const all = logLines();
      const now = all.slice(earlier);
      return now.some((l) => l.level === 'Information' && /^The database \(PostgreSQL\) is available again/.test(l.message)) ? now : null;
    });
    const warnings = lines.filter((l) => l.level === 'Warning' && /^The database \(PostgreSQL\) is unavailable/.test(l.message));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/\(POST \/api\/v1\/synchronisation\/connected-systems\)|\(idle pool connection\)/);
    expect(warnings[0]).not.toHaveProperty('exception');
    expect(lines.filter((l) => l.level === 'Error')).toEqual([]);
  });
});
