import { createServiceLogger, loadConfig } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { Client } from 'pg';
import { LeaderService } from '../src/leader.service';

describe('LeaderService', () => {
  let db: TestDatabase;
  let env: TestEnvironment;

  beforeAll(async () => {
    db = await createTestDatabase('leader', false);
    env = createTestEnvironment(db.url);
  });

  afterAll(async () => {
    await env?.cleanup();
    await db?.drop();
  });

  function replica(): LeaderService {
    const config = loadConfig('scheduler', env.env);
    return new LeaderService(
      config,
      { leaderIntervalMs: 50 },
      createServiceLogger({ service: 'scheduler', logDir: env.logDir, level: 'Error', console: false }),
    );
  }

  it('elects exactly one leader and hands over when it goes away', async () => {
    const a = replica();
    const b = replica();
    a.onApplicationBootstrap();
    b.onApplicationBootstrap();
    const first = await waitFor(async () => (a.isLeader ? a : b.isLeader ? b : null));
    const second = first === a ? b : a;
    await new Promise((r) => setTimeout(r, 300));
    expect(a.isLeader && b.isLeader).toBe(false);
    expect(second.isLeader).toBe(false);

    await first.onModuleDestroy();
    await waitFor(async () => second.isLeader);
    await second.onModuleDestroy();
  });

  it('stopped while its first check is connecting, it keeps no connection and no lock', async () => {
    const a = replica();
    a.onApplicationBootstrap();
    await a.onModuleDestroy();
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'meridian-scheduler-leader' AND datname = $1`,
        [db.name],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await admin.end();
    }
    expect(a.isLeader).toBe(false);
    const b = replica();
    b.onApplicationBootstrap();
    await waitFor(async () => b.isLeader);
    await b.onModuleDestroy();
  });

  it('loses leadership when its connection is killed and wins it back', async () => {
    const a = replica();
    const changes: boolean[] = [];
    a.onChange((leader) => changes.push(leader));
    a.onApplicationBootstrap();
    await waitFor(async () => a.isLeader);
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'meridian-scheduler-leader' AND datname = $1`,
      [db.name],
    );
    await admin.end();
    await waitFor(async () => changes.includes(false));
    await waitFor(async () => a.isLeader);
    expect(changes).toEqual([true, false, true]);
    await a.onModuleDestroy();
  });
});
