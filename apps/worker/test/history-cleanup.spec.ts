import { INestApplicationContext } from '@nestjs/common';
import { ActivityStatus, ActivityTargetType, InitiatedByType } from '@meridian/domain';
import { HISTORY_CLEANUP_EVERY_MS, JobName, MERIDIAN_QUEUE } from '@meridian/jobs';
import { closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, HistorySeed, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { createWorker } from '../src/bootstrap';
import { HistoryCleanupHandler } from '../src/handlers/history-cleanup.handler';

const DAY = 86_400_000;

/** The daily history cleanup as workers run it: one repeatable job however many workers start, attributed to Housekeeping. */
describe('daily history cleanup (worker)', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  const workers: INestApplicationContext[] = [];
  let pg: Client;
  let queue: Queue;
  let seed: HistorySeed;

  beforeAll(async () => {
    db = await createTestDatabase('worker-history');
    env = createTestEnvironment(db.url);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    seed = new HistorySeed(pg);
    // Old history before any worker starts: the first worker's registration runs the first cleanup at once.
    const old = Date.now() - 100 * DAY;
    await seed.csoChanges([new Date(old), new Date(old + 1000), new Date(old + 2000)]);
    await seed.mvoChanges([new Date(old + 3000), new Date(old + 4000)]);
    await seed.activity({ created: new Date(old - 1000), items: 4 });
    await seed.csoChanges([new Date(Date.now() - DAY)]);
    const config = loadConfig('worker', env.env);
    logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: config.logLevel, console: false });
    workers.push(await createWorker(config, logger));
    workers.push(await createWorker(config, logger));
    queue = new Queue(MERIDIAN_QUEUE, { connection: { url: env.env.REDIS_URL }, prefix: env.redisPrefix });
  });

  afterAll(async () => {
    await queue?.close();
    await pg?.end();
    for (const w of workers) await w.close();
    if (logger) await closeLogger(logger);
    await env?.cleanup();
    await db?.drop();
  });

  const cleanups = async () =>
    (await pg.query(`SELECT * FROM activity WHERE target_type = $1 ORDER BY created`, [ActivityTargetType.HistoryRetentionCleanup])).rows;

  it('registers the daily cleanup once, however many workers start', async () => {
    const schedulers = (await queue.getJobSchedulers()).filter((s) => s.name === JobName.HistoryCleanup);
    expect(schedulers).toHaveLength(1);
    expect(schedulers[0]).toMatchObject({ key: 'history-cleanup', every: HISTORY_CLEANUP_EVERY_MS });
    expect(HISTORY_CLEANUP_EVERY_MS).toBe(DAY);
  });

  it('runs the cleanup through the queue, attributed to System "Housekeeping"', async () => {
    const [run] = await waitFor(
      async () => {
        const rows = await cleanups();
        return rows.length && rows[0].status !== ActivityStatus.InProgress ? rows : null;
      },
      30_000,
      100,
    );
    expect(run).toMatchObject({
      status: ActivityStatus.Complete,
      initiated_by_type: InitiatedByType.System,
      initiated_by_name: 'Housekeeping',
      total_deleted: 6,
    });
    expect(run.details).toMatchObject({
      csoChangesDeleted: 3,
      mvoChangesDeleted: 2,
      activitiesDeleted: 1,
      retentionPeriodDays: 90,
      batchSize: 1000,
    });
    expect(await seed.count('connected_system_object_change')).toBe(1);
    expect(await seed.count('metaverse_object_change')).toBe(0);
    expect(await seed.count('activity_execution_item')).toBe(0);
    // One run for two workers: the next is a day away.
    expect(await cleanups()).toHaveLength(1);
  });

  it('has a handler for the job, which runs the same cleanup', async () => {
    const handler = workers[0].get(HistoryCleanupHandler);
    expect(handler.name).toBe(JobName.HistoryCleanup);
    await seed.mvoChanges([new Date(Date.now() - 95 * DAY)]);
    expect(await handler.handle({})).toMatchObject({ csoChangesDeleted: 0, mvoChangesDeleted: 1, activitiesDeleted: 0 });
    expect((await cleanups()).map((r) => r.initiated_by_name)).toEqual(['Housekeeping', 'Housekeeping']);
  });
});
