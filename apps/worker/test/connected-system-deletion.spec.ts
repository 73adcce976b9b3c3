import { INestApplicationContext } from '@nestjs/common';
import { ConnectedSystemDeletionService, SYSTEM_INITIATOR } from '@meridian/application';
import { ActivityStatus, ConnectedSystemDeletionOutcome } from '@meridian/domain';
import { JobName, MERIDIAN_QUEUE } from '@meridian/jobs';
import { closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, HistorySeed, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { Job, Queue } from 'bullmq';
import { Client } from 'pg';
import { createWorker } from '../src/bootstrap';
import { ConnectedSystemDeletionHandler } from '../src/handlers/connected-system-deletion.handler';

/** Background deletion of a connected system, against a real database, through the service, the handler and the queue. */
describe('connected system deletion (worker)', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  let worker: INestApplicationContext;
  let pg: Client;
  let deletion: ConnectedSystemDeletionService;
  let seq = 0;

  beforeAll(async () => {
    db = await createTestDatabase('worker-deletion');
    env = createTestEnvironment(db.url);
    const config = loadConfig('worker', env.env);
    logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: config.logLevel, console: false });
    worker = await createWorker(config, logger);
    deletion = worker.get(ConnectedSystemDeletionService);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    await worker?.close();
    if (logger) await closeLogger(logger);
    await env?.cleanup();
    await db?.drop();
  });

  const one = async <T = any>(sql: string, params: unknown[] = []): Promise<T> => (await pg.query(sql, params)).rows[0];
  const count = async (sql: string, params: unknown[] = []): Promise<number> => Number((await pg.query(sql, params)).rows[0].count);

  /** A system with an object type, attributes, a run profile, a sync rule and `objects` CSOs (inserted set-based). */
  async function seedSystem(objects: number, options: { joinEvery?: number } = {}) {
    seq += 1;
    const system = await one<{ id: number }>(
      `INSERT INTO connected_system (name, connector_type, settings) VALUES ($1, 'File', '{"filePath":"x.csv"}') RETURNING id`,
      [`System ${seq}`],
    );
    const type = await one<{ id: number }>(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'person', true) RETURNING id`,
      [system.id],
    );
    await pg.query(
      `INSERT INTO connected_system_attribute (object_type_id, name, type, plurality, selected, is_external_id) VALUES ($1, 'employeeId', 'String', 'Single', true, true), ($1, 'mail', 'String', 'Single', true, false)`,
      [type.id],
    );
    await pg.query(
      `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, 'Full import', 'FullImport')`,
      [system.id],
    );
    const user = await one<{ id: number }>(`SELECT id FROM metaverse_object_type WHERE name = 'User'`);
    await pg.query(
      `INSERT INTO sync_rule (name, connected_system_id, direction, connected_system_object_type_id, metaverse_object_type_id) VALUES ('HR users', $1, 'Import', $2, $3)`,
      [system.id, type.id, user.id],
    );
    await pg.query(
      `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name, attributes)
       SELECT $1, $2, 'E' || g, 'Person ' || g, jsonb_build_object('1', jsonb_build_array('E' || g)) FROM generate_series(1, $3::int) g`,
      [system.id, type.id, objects],
    );
    if (options.joinEvery) {
      await pg.query(
        `WITH picked AS (SELECT id FROM connected_system_object WHERE connected_system_id = $1 ORDER BY external_id LIMIT $2),
              made AS (INSERT INTO metaverse_object (type_id, origin, display_name) SELECT $3, 'Projected', 'mv ' || id FROM picked RETURNING id, display_name)
         UPDATE connected_system_object c SET metaverse_object_id = made.id, join_type = 'Projected' FROM made WHERE 'mv ' || c.id = made.display_name`,
        [system.id, Math.floor(objects / options.joinEvery), user.id],
      );
    }
    return { systemId: system.id, typeId: type.id };
  }

  async function queueActivity(systemId: number, extra: Record<string, unknown> = {}): Promise<string> {
    const row = await one<{ id: string }>(
      `INSERT INTO activity (status, target_type, target_operation_type, target_id, target_name, connected_system_id, initiated_by_type, initiated_by_name, objects_to_process, details)
       VALUES ('InProgress', 'ConnectedSystem', 'Delete', $1::int::text, (SELECT name FROM connected_system WHERE id = $1::int), $1::int, 'System', 'System',
               (SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1::int), '{}') RETURNING id`,
      [systemId],
    );
    for (const [column, value] of Object.entries(extra))
      await pg.query(`UPDATE activity SET ${column} = $2 WHERE id = $1`, [row.id, value]);
    return row.id;
  }

  const activity = (id: string) => one(`SELECT * FROM activity WHERE id = $1`, [id]);
  const leftovers = async (systemId: number, typeId: number) => ({
    systems: await count(`SELECT count(*) FROM connected_system WHERE id = $1`, [systemId]),
    objects: await count(`SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1`, [systemId]),
    objectTypes: await count(`SELECT count(*) FROM connected_system_object_type WHERE connected_system_id = $1`, [systemId]),
    attributes: await count(`SELECT count(*) FROM connected_system_attribute WHERE object_type_id = $1`, [typeId]),
    runProfiles: await count(`SELECT count(*) FROM connected_system_run_profile WHERE connected_system_id = $1`, [systemId]),
    syncRules: await count(`SELECT count(*) FROM sync_rule WHERE connected_system_id = $1`, [systemId]),
  });
  const NOTHING = { systems: 0, objects: 0, objectTypes: 0, attributes: 0, runProfiles: 0, syncRules: 0 };

  it('deletes the connector space in batches, then the system with everything under it, and completes the activity', async () => {
    const { systemId, typeId } = await seedSystem(2300, { joinEvery: 10 });
    const other = await seedSystem(5);
    const user = await one(`SELECT id FROM metaverse_object_type WHERE name = 'User'`);
    await pg.query(`UPDATE metaverse_object_type SET deletion_trigger_connected_system_ids = ARRAY[$1::int, $2::int] WHERE id = $3`, [
      systemId,
      other.systemId,
      user.id,
    ]);
    const mvoBefore = await count(`SELECT count(*) FROM metaverse_object`);
    const activityId = await queueActivity(systemId);

    const result = await deletion.run(activityId, 'test-worker', { batchSize: 500 });

    expect(result).toEqual({ state: 'completed', deleted: 2300 });
    expect(await leftovers(systemId, typeId)).toEqual(NOTHING);
    expect(await leftovers(other.systemId, other.typeId)).toEqual({
      systems: 1,
      objects: 5,
      objectTypes: 1,
      attributes: 2,
      runProfiles: 1,
      syncRules: 1,
    });
    // Joined metaverse objects stay (their deletion rules are the engine's business); only the system leaves the trigger list.
    expect(await count(`SELECT count(*) FROM metaverse_object`)).toBe(mvoBefore);
    expect(
      (await one(`SELECT deletion_trigger_connected_system_ids AS ids FROM metaverse_object_type WHERE id = $1`, [user.id])).ids,
    ).toEqual([other.systemId]);
    const a = await activity(activityId);
    expect(a).toMatchObject({
      status: ActivityStatus.Complete,
      objects_processed: 2300,
      objects_to_process: 2300,
      claimed_by: 'test-worker',
    });
    expect(a.executed).toBeInstanceOf(Date);
    expect(a.completed).toBeInstanceOf(Date);
    expect(Number(a.execution_time_ms)).toBeGreaterThanOrEqual(0);
    expect(a.message).toMatch(/deleted with 2300 connector space object/);
  });

  it('is safe to run again: a finished deletion does nothing, and a crash after the system went still completes', async () => {
    const { systemId } = await seedSystem(3);
    const activityId = await queueActivity(systemId);
    expect((await deletion.run(activityId, 'w1')).state).toBe('completed');
    expect(await deletion.run(activityId, 'w1')).toMatchObject({ state: 'finished' });

    const gone = await seedSystem(0);
    const orphan = await queueActivity(gone.systemId);
    await pg.query(`DELETE FROM connected_system WHERE id = $1`, [gone.systemId]);
    expect((await deletion.run(orphan, 'w1')).state).toBe('completed');
    expect((await activity(orphan)).status).toBe(ActivityStatus.Complete);
  });

  it('resumes a deletion whose worker died (stale heartbeat) and leaves a live one alone', async () => {
    const { systemId, typeId } = await seedSystem(40);
    // The dead worker had deleted 60 objects before it stopped heart-beating 10 minutes ago.
    const activityId = await queueActivity(systemId, { claimed_by: 'dead-worker', objects_processed: 60 });
    await pg.query(
      `UPDATE activity SET claimed_at = now() - interval '10 minutes', heartbeat_at = now() - interval '10 minutes', executed = now() - interval '10 minutes' WHERE id = $1`,
      [activityId],
    );
    expect(await deletion.run(activityId, 'new-worker', { batchSize: 7 })).toEqual({ state: 'completed', deleted: 40 });
    expect(await leftovers(systemId, typeId)).toEqual(NOTHING);
    expect(await activity(activityId)).toMatchObject({
      status: ActivityStatus.Complete,
      objects_processed: 100,
      objects_to_process: 100,
      claimed_by: 'new-worker',
    });

    const live = await seedSystem(4);
    const liveActivity = await queueActivity(live.systemId, { claimed_by: 'busy-worker' });
    await pg.query(`UPDATE activity SET claimed_at = now(), heartbeat_at = now() WHERE id = $1`, [liveActivity]);
    expect(await deletion.run(liveActivity, 'other-worker')).toMatchObject({ state: 'busy', deleted: 0 });
    expect(await count(`SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1`, [live.systemId])).toBe(4);
  });

  it('waits while a run of the system is in progress (QueuedAfterSync), ignoring runs that went stale', async () => {
    const { systemId, typeId } = await seedSystem(12);
    const run = await one<{ id: string }>(
      `INSERT INTO activity (status, target_type, target_operation_type, connected_system_id, initiated_by_type) VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', $1, 'System') RETURNING id`,
      [systemId],
    );
    const activityId = await queueActivity(systemId);

    const waiting = await deletion.run(activityId, 'w', { staleMs: 60_000 });
    expect(waiting).toMatchObject({ state: 'waiting', deleted: 0 });
    expect(waiting.reason).toContain(run.id);
    expect(await count(`SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1`, [systemId])).toBe(12);
    expect((await activity(activityId)).message).toMatch(/Waiting for run profile activity/);

    // A run nobody has heard of for longer than the stale timeout no longer blocks.
    await pg.query(`UPDATE activity SET created = now() - interval '2 minutes' WHERE id = $1`, [run.id]);
    expect((await deletion.run(activityId, 'w', { staleMs: 60_000 })).state).toBe('completed');
    expect(await leftovers(systemId, typeId)).toEqual(NOTHING);
  });

  it('runs through the queue: a requested deletion of a large system is carried out by the worker', async () => {
    const { systemId, typeId } = await seedSystem(1500);
    const { status, result } = await deletion.requestDeletion(systemId, false, SYSTEM_INITIATOR);
    expect(status).toBe(202);
    expect(result).toEqual({
      success: true,
      outcome: ConnectedSystemDeletionOutcome.QueuedAsBackgroundJob,
      errorMessage: null,
      workerTaskId: result.activityId,
      activityId: expect.any(String),
    });
    const done = await waitFor(
      async () => {
        const a = await activity(result.activityId!);
        return a.status !== ActivityStatus.InProgress ? a : null;
      },
      30_000,
      100,
    );
    expect(done).toMatchObject({ status: ActivityStatus.Complete, objects_processed: 1500, objects_to_process: 1500 });
    expect(await leftovers(systemId, typeId)).toEqual(NOTHING);
  });

  it('through the queue, a deletion requested during a run is postponed (delayed job) and carried out after the run', async () => {
    const { systemId, typeId } = await seedSystem(20);
    const run = await one<{ id: string }>(
      `INSERT INTO activity (status, target_type, target_operation_type, connected_system_id, initiated_by_type) VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', $1, 'System') RETURNING id`,
      [systemId],
    );
    const { status, result } = await deletion.requestDeletion(systemId, false, SYSTEM_INITIATOR);
    expect([status, result.outcome]).toEqual([202, ConnectedSystemDeletionOutcome.QueuedAfterSync]);

    const queue = new Queue(MERIDIAN_QUEUE, { connection: { url: env.env.REDIS_URL }, prefix: env.redisPrefix });
    try {
      const jobId = `delete-connected-system-${result.activityId}`;
      await waitFor(async () => (await queue.getJob(jobId))?.isDelayed(), 15_000, 50);
      expect((await activity(result.activityId!)).message).toContain(run.id);
      expect(await count(`SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1`, [systemId])).toBe(20);

      await pg.query(`UPDATE activity SET status = 'Complete', completed = now() WHERE id = $1`, [run.id]);
      await (await queue.getJob(jobId))!.promote();
      await waitFor(async () => (await activity(result.activityId!)).status === ActivityStatus.Complete, 15_000, 50);
      expect(await leftovers(systemId, typeId)).toEqual(NOTHING);
    } finally {
      await queue.close();
    }
  });

  it('fails the activity after the last attempt so the system can be deleted again', async () => {
    const { systemId } = await seedSystem(2);
    const activityId = await queueActivity(systemId);
    const failing = {
      run: async () => {
        throw new Error('database went away');
      },
      fail: (id: string, reason: string) => deletion.fail(id, reason),
    } as unknown as ConnectedSystemDeletionService;
    const handler = new ConnectedSystemDeletionHandler(failing, logger);
    const job = (attemptsMade: number) => ({ opts: { attempts: 5 }, attemptsMade }) as unknown as Job<{ activityId: string }>;

    await expect(handler.handle({ activityId }, job(1))).rejects.toThrow('database went away');
    expect((await activity(activityId)).status).toBe(ActivityStatus.InProgress);
    await expect(handler.handle({ activityId }, job(4))).rejects.toThrow('database went away');
    expect(await activity(activityId)).toMatchObject({
      status: ActivityStatus.FailedWithError,
      error_message: expect.stringMatching(/after 5 attempt\(s\): database went away/),
    });
    expect(await count(`SELECT count(*) FROM connected_system WHERE id = $1`, [systemId])).toBe(1);
  });

  describe('with deleteChangeHistory', () => {
    const DAY = 86_400_000;
    const changesOf = (systemId: number) =>
      count(`SELECT count(*) FROM connected_system_object_change WHERE connected_system_id = $1`, [systemId]);

    /** Change records of a system's objects (within the retention period) and of its metaverse side (kept: they belong to the metaverse). */
    async function history(systemId: number, records: number): Promise<void> {
      const now = Date.now();
      const times = Array.from({ length: records }, (_, i) => new Date(now - (i % 2 ? 2 * DAY : DAY) - i * 1000));
      await new HistorySeed(pg).csoChanges(times, { systemId });
      await pg.query(
        `INSERT INTO metaverse_object_change (id, change_time, metaverse_object_id, object_type_id, change_type, connected_system_id, initiated_by_type)
         VALUES (gen_random_uuid(), now(), gen_random_uuid(), 1, 'Joined', $1, 'System')`,
        [systemId],
      );
    }

    beforeAll(async () => {
      // Small batches, so the system's history goes in several.
      await pg.query(
        `INSERT INTO service_setting (key, value, last_updated, last_updated_by) VALUES ('History.CleanupBatchSize', '3', now(), 'test')`,
      );
    });

    afterAll(async () => {
      await pg.query(`DELETE FROM service_setting WHERE key = 'History.CleanupBatchSize'`);
    });

    it('true: an immediate deletion also deletes the change records of the system, in batches, and no other system', async () => {
      const { systemId } = await seedSystem(3);
      const other = await seedSystem(2);
      await history(systemId, 11);
      await history(other.systemId, 4);
      const mvoChanges = await count(`SELECT count(*) FROM metaverse_object_change`);

      const { status, result } = await deletion.requestDeletion(systemId, true, SYSTEM_INITIATOR);

      expect([status, result.outcome]).toEqual([200, ConnectedSystemDeletionOutcome.CompletedImmediately]);
      expect(await changesOf(systemId)).toBe(0);
      expect(await changesOf(other.systemId)).toBe(4);
      expect(await count(`SELECT count(*) FROM metaverse_object_change`)).toBe(mvoChanges);
    });

    it('false: the change records of a deleted system stay', async () => {
      const { systemId } = await seedSystem(3);
      await history(systemId, 5);

      const { status } = await deletion.requestDeletion(systemId, false, SYSTEM_INITIATOR);

      expect(status).toBe(200);
      expect(await count(`SELECT count(*) FROM connected_system WHERE id = $1`, [systemId])).toBe(0);
      expect(await changesOf(systemId)).toBe(5);
    });

    it('true: a background deletion deletes them before the system, false keeps them', async () => {
      const withHistory = await seedSystem(30);
      const withoutHistory = await seedSystem(30);
      await history(withHistory.systemId, 17);
      await history(withoutHistory.systemId, 6);
      const first = await queueActivity(withHistory.systemId, { details: JSON.stringify({ deleteChangeHistory: true }) });
      const second = await queueActivity(withoutHistory.systemId, { details: JSON.stringify({ deleteChangeHistory: false }) });

      expect(await deletion.run(first, 'w', { batchSize: 7 })).toEqual({ state: 'completed', deleted: 30 });
      expect(await deletion.run(second, 'w', { batchSize: 7 })).toEqual({ state: 'completed', deleted: 30 });

      expect(await changesOf(withHistory.systemId)).toBe(0);
      expect(await changesOf(withoutHistory.systemId)).toBe(6);
    });
  });

  it('has a handler registered for the deletion job', () => {
    expect(worker.get(ConnectedSystemDeletionHandler).name).toBe(JobName.DeleteConnectedSystem);
  });
});
