import { INestApplicationContext } from '@nestjs/common';
import { HousekeepingService, RunProfileExecutor } from '@meridian/application';
import { closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment } from '@meridian/testing';
import { BulkSession, StatisticsStore } from '@meridian/persistence';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createWorker } from '../../src/bootstrap';
import { SyncSeed } from './sync-seed';

/** Claim, locks, cancellation and the reaper of run-profile activities, against a real database. */
describe('run lifecycle', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  let worker: INestApplicationContext;
  let pg: Client;
  let seed: SyncSeed;
  let executor: RunProfileExecutor;
  let system: Awaited<ReturnType<SyncSeed['system']>>;

  beforeAll(async () => {
    db = await createTestDatabase('engine-lifecycle');
    env = createTestEnvironment(db.url);
    const config = loadConfig('worker', env.env);
    logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: config.logLevel, console: false });
    worker = await createWorker(config, logger);
    executor = worker.get(RunProfileExecutor);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    seed = new SyncSeed(pg);
    const user = await seed.mvType('User');
    system = await seed.system('Source', 'person', ['key', 'name']);
    const rule = await seed.rule({
      name: 'in',
      systemId: system.id,
      typeId: system.typeId,
      direction: 'Import',
      mvTypeId: user,
      project: true,
    });
    await seed.inbound(rule, await seed.mvAttribute('Common Name'), { cs: system.attributes.name });
    await pg.query(
      `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, attributes)
       SELECT $1, $2, 'K' || g, jsonb_build_object($3::text, jsonb_build_array('K' || g), $4::text, jsonb_build_array('Name ' || g))
         FROM generate_series(1, 3000) g`,
      [system.id, system.typeId, String(system.attributes.key), String(system.attributes.name)],
    );
    await pg.query(`UPDATE connected_system_run_profile SET page_size = 20 WHERE connected_system_id = $1`, [system.id]);
  });

  afterAll(async () => {
    await pg?.end();
    await worker?.close();
    if (logger) await closeLogger(logger);
    await env?.cleanup();
    await db?.drop();
  });

  const one = async <T = any>(sql: string, params: unknown[] = []): Promise<T> => (await pg.query(sql, params)).rows[0];
  const activity = (id: string) => one(`SELECT * FROM activity WHERE id = $1`, [id]);

  it('ends a run cancelled before it started as Cancelled without running it', async () => {
    const id = await seed.activity(system.id, system.profiles.FullSynchronisation, 'FullSynchronisation');
    await pg.query(`UPDATE activity SET cancel_requested = true WHERE id = $1`, [id]);
    expect(await executor.execute(id, 'test')).toEqual({ state: 'done', status: 'Cancelled' });
    expect(await activity(id)).toMatchObject({ status: 'Cancelled', objects_processed: 0, message: 'Cancelled before it started.' });
    expect(await executor.execute(id, 'test')).toEqual({ state: 'not-claimed' });
  });

  it('makes a second run of a busy system wait, then runs it once the first has ended', async () => {
    const other = await seed.system('Other', 'person', ['key']);
    const first = await seed.activity(other.id, other.profiles.FullImport, 'FullImport');
    await pg.query(`UPDATE activity SET claimed_at = now(), heartbeat_at = now() WHERE id = $1`, [first]);
    await pg.query(`INSERT INTO run_lock (lock_key, activity_id) VALUES ($1, $2)`, [`connected-system:${other.id}`, first]);
    const second = await seed.activity(other.id, other.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    const waiting = await executor.execute(second, 'test');
    expect(waiting.state).toBe('waiting');
    expect(await activity(second)).toMatchObject({ status: 'InProgress', claimed_at: null, message: expect.stringContaining(first) });
    await pg.query(`UPDATE activity SET status = 'Complete' WHERE id = $1`, [first]);
    expect(await executor.execute(second, 'test')).toMatchObject({ state: 'done' });
    expect(Number((await one(`SELECT count(*) FROM run_lock`)).count)).toBe(0);
  });

  it('stops a running synchronisation at a page boundary when cancelled; Cancelled sticks and the next run completes exactly', async () => {
    const id = await seed.activity(system.id, system.profiles.FullSynchronisation, 'FullSynchronisation');
    const running = executor.execute(id, 'test');
    for (let i = 0; i < 500; i++) {
      const row = await activity(id);
      if (row.objects_processed > 0 || row.status !== 'InProgress') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await pg.query(`UPDATE activity SET cancel_requested = true WHERE id = $1`, [id]);
    expect(await running).toEqual({ state: 'done', status: 'Cancelled' });
    const cancelled = await activity(id);
    expect(cancelled.objects_processed).toBeLessThan(3000);
    expect(cancelled.message).toMatch(/^Cancelled after \d+ object/);
    const projected = Number((await one(`SELECT count(*) FROM metaverse_object`)).count);
    expect(projected).toBe(cancelled.total_projected);

    const next = await seed.activity(system.id, system.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(await executor.execute(next, 'test')).toEqual({ state: 'done', status: 'Complete' });
    expect(await activity(next)).toMatchObject({ total_projected: 3000 - projected, objects_processed: 3000 });
    expect(Number((await one(`SELECT count(*) FROM metaverse_object`)).count)).toBe(3000);
    expect(Number((await one(`SELECT count(*) FROM connected_system_object WHERE metaverse_object_id IS NULL`)).count)).toBe(0);
    expect((await activity(id)).status).toBe('Cancelled');
  });

  it('analyses the engine tables that bulk writes made stale before a run plans its pages, and runs without JIT', async () => {
    const ds = worker.get(DataSource);
    expect((await ds.query('SHOW jit'))[0].jit).toBe('off');
    const stats = () =>
      one<{ changed: string; analysed: string }>(
        `SELECT n_mod_since_analyze AS changed, analyze_count AS analysed FROM pg_stat_user_tables WHERE relname = 'connected_system_object'`,
      );
    // A bulk write the planner has not seen (autovacuum is not relied on), made visible to the statistics at once.
    await pg.query(`UPDATE connected_system_object SET last_updated = now() WHERE connected_system_id = $1`, [system.id]);
    await pg.query('SELECT pg_stat_force_next_flush()');
    for (let i = 0; i < 100 && Number((await stats()).changed) < 3000; i++) await new Promise((r) => setTimeout(r, 100));
    const before = await stats();
    expect(Number(before.changed)).toBeGreaterThanOrEqual(3000);
    const id = await seed.activity(system.id, system.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(await executor.execute(id, 'test')).toEqual({ state: 'done', status: 'Complete' });
    expect(Number((await stats()).analysed)).toBe(Number(before.analysed) + 1);
    expect((await activity(id)).execution_stats.phases.map((p: { name: string }) => p.name)).toContain('statistics');
    // Fresh statistics (nothing written since): nothing to analyse.
    await pg.query(`ANALYZE connected_system_object`);
    expect(await BulkSession.with(ds, (session) => new StatisticsStore(session).refresh(['connected_system_object']))).toEqual([]);
  });

  it('plans without parallel workers, and commits pages without waiting for the disk while runs end durably', async () => {
    const ds = worker.get(DataSource);
    expect((await ds.query('SHOW max_parallel_workers_per_gather'))[0].max_parallel_workers_per_gather).toBe('0');
    const seen = await BulkSession.with(ds, async (session) => {
      const setting = async () => (await session.row<{ synchronous_commit: string }>('SHOW synchronous_commit'))!.synchronous_commit;
      const page = await session.transaction(setting, 'page');
      const durable = await session.transaction(setting);
      return { page, durable, after: await setting() };
    });
    // Only the page's own transaction is relaxed: the connection goes back to the pool as it was.
    expect(seen).toEqual({ page: 'off', durable: 'on', after: 'on' });
  });

  it('reaps a run whose worker stopped heart-beating and releases its locks', async () => {
    const id = await seed.activity(system.id, system.profiles.FullImport, 'FullImport');
    await pg.query(`UPDATE activity SET claimed_at = now() - interval '1 hour', heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [
      id,
    ]);
    await pg.query(`INSERT INTO run_lock (lock_key, activity_id) VALUES ($1, $2)`, [`connected-system:${system.id}`, id]);
    const fresh = await seed.activity(system.id, system.profiles.FullImport, 'FullImport');
    await pg.query(`UPDATE activity SET claimed_at = now(), heartbeat_at = now() WHERE id = $1`, [fresh]);
    const reaped = await worker.get(HousekeepingService).reap();
    expect(reaped).toEqual([id]);
    expect(await activity(id)).toMatchObject({ status: 'FailedWithError', error_message: expect.stringMatching(/stopped reporting/) });
    expect((await activity(fresh)).status).toBe('InProgress');
    expect(Number((await one(`SELECT count(*) FROM run_lock`)).count)).toBe(0);
    await pg.query(`UPDATE activity SET status = 'Complete' WHERE id = $1`, [fresh]);
  });
});
