import { HistoryCleanupService, SYSTEM_INITIATOR } from '@meridian/application';
import { ActivityStatus, ActivityTargetType } from '@meridian/domain';
import { HistorySeed, waitFor } from '@meridian/testing';
import { EngineFixture } from './engine-fixture';
import { SyncSeed } from './sync-seed';

const DAY = 86_400_000;
const OBJECTS = 3000;
const COUNTERS = [
  'objects_to_process',
  'objects_processed',
  'total_added',
  'total_updated',
  'total_deleted',
  'total_projected',
  'total_joined',
  'total_attribute_flows',
  'total_disconnected',
  'total_provisioned',
  'total_pending_exports',
  'total_errors',
];

/** A history cleanup racing a running synchronisation deletes the old history and nothing of the run. */
describe('history cleanup during a synchronisation', () => {
  let fx: EngineFixture;
  let seed: SyncSeed;
  let history: HistorySeed;

  beforeAll(async () => {
    fx = await EngineFixture.start('history-race');
    seed = new SyncSeed(fx.pg);
    history = new HistorySeed(fx.pg);
    // The daily cleanup's first run starts with the worker: let it finish, so the one measured here is alone in deleting.
    await waitFor(
      async () =>
        (
          await fx.query(`SELECT 1 FROM activity WHERE target_type = $1 AND initiated_by_name = 'Housekeeping' AND status <> $2`, [
            ActivityTargetType.HistoryRetentionCleanup,
            ActivityStatus.InProgress,
          ])
        ).length > 0,
      30_000,
      50,
    );
  });

  afterAll(async () => {
    await fx?.stop();
  });

  /** A system of OBJECTS imported people, projected to the metaverse with their name by a full synchronisation. */
  async function system(name: string) {
    const sys = await seed.system(name, 'person', ['key', 'name']);
    const rule = await seed.rule({
      name,
      systemId: sys.id,
      typeId: sys.typeId,
      direction: 'Import',
      mvTypeId: await seed.mvType('User'),
      project: true,
    });
    await seed.inbound(rule, await seed.mvAttribute('Common Name'), { cs: sys.attributes.name });
    await fx.query(
      `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name, attributes)
       SELECT $1, $2, $3 || g, $3 || g, jsonb_build_object($4::text, jsonb_build_array($3 || g), $5::text, jsonb_build_array('Person ' || g))
         FROM generate_series(1, $6::int) g`,
      [sys.id, sys.typeId, `${name}-`, sys.attributes.key, sys.attributes.name, OBJECTS],
    );
    await fx.query(`UPDATE connected_system_run_profile SET page_size = 50 WHERE connected_system_id = $1`, [sys.id]);
    return sys;
  }

  const count = async (sql: string, params: unknown[] = []) => Number((await fx.query(sql, params))[0].count);
  const counters = (row: Record<string, unknown>) => Object.fromEntries(COUNTERS.map((c) => [c, row[c]]));

  it('loses nothing of the run: its activity, counters, execution items and change records are all there; the old history is gone', async () => {
    // The same synchronisation without a cleanup, for comparison.
    const alone = await system('Alone');
    const baseline = await fx.run(alone.id, alone.profiles.FullSynchronisation);
    expect(baseline).toMatchObject({
      status: ActivityStatus.Complete,
      objects_processed: OBJECTS,
      total_projected: OBJECTS,
      total_errors: 0,
    });

    // Old history in small batches, so the cleanup takes many statements while the run writes.
    const old = Date.now() - 100 * DAY;
    const times = (n: number) => Array.from({ length: n }, (_, i) => new Date(old + i * 1000));
    await history.csoChanges(times(2000));
    await history.mvoChanges(times(2000));
    const oldActivities: string[] = [];
    for (const t of times(20)) oldActivities.push(await history.activity({ created: t, items: 500 }));
    await fx.query(
      `INSERT INTO service_setting (key, value, last_updated, last_updated_by) VALUES ('History.CleanupBatchSize', '100', now(), 'test')`,
    );

    const raced = await system('Raced');
    const activityId = await fx.queueRun(raced.id, raced.profiles.FullSynchronisation);
    // The cleanup starts once the run has committed its first page, and runs while the run writes the rest.
    const running = fx.execute(activityId);
    await waitFor(async () => (await fx.activity(activityId)).objects_processed > 0, 30_000, 5);
    const cleaning = fx.worker.get(HistoryCleanupService).cleanup(SYSTEM_INITIATOR);
    const [run, result] = await Promise.all([running, cleaning]);

    const [cleanup] = await fx.query(`SELECT executed FROM activity WHERE target_type = $1 AND initiated_by_name = $2`, [
      ActivityTargetType.HistoryRetentionCleanup,
      SYSTEM_INITIATOR.name,
    ]);
    expect(cleanup.executed.getTime()).toBeLessThan(run.completed.getTime());
    expect(result).toMatchObject({
      csoChangesDeleted: 2000,
      mvoChangesDeleted: 2000,
      activitiesDeleted: 20,
      batchSize: 100,
      retentionPeriodDays: 90,
    });
    expect(run.status).toBe(ActivityStatus.Complete);
    expect(counters(run)).toEqual(counters(baseline));
    expect(await count(`SELECT count(*) FROM activity_execution_item WHERE activity_id = $1`, [activityId])).toBe(OBJECTS);
    expect(await count(`SELECT count(*) FROM activity_execution_item WHERE activity_id = $1`, [baseline.id])).toBe(OBJECTS);
    // Every object of the raced system was projected and joined.
    expect(
      await count(`SELECT count(DISTINCT metaverse_object_id) AS count FROM connected_system_object WHERE connected_system_id = $1`, [
        raced.id,
      ]),
    ).toBe(OBJECTS);
    // Whatever change records the engine writes for a run, the raced run has as many as the one that ran alone.
    for (const table of ['connected_system_object_change', 'metaverse_object_change']) {
      const written = await count(`SELECT count(*) FROM ${table} WHERE activity_id = $1`, [activityId]);
      expect({ table, written }).toEqual({
        table,
        written: await count(`SELECT count(*) FROM ${table} WHERE activity_id = $1`, [baseline.id]),
      });
    }

    expect(await count(`SELECT count(*) FROM connected_system_object_change WHERE change_time < now() - interval '90 days'`)).toBe(0);
    expect(await count(`SELECT count(*) FROM metaverse_object_change WHERE change_time < now() - interval '90 days'`)).toBe(0);
    expect(await count(`SELECT count(*) FROM activity WHERE id = ANY($1::uuid[])`, [oldActivities])).toBe(0);
    expect(await count(`SELECT count(*) FROM activity_execution_item WHERE activity_id = ANY($1::uuid[])`, [oldActivities])).toBe(0);
  });
});
