import { ActivityStatus, ActivityTargetType, ExecutionStatus, InitiatedByType, StepStatus } from '@meridian/domain';
import { HistorySeed } from '@meridian/testing';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** POST /api/v1/history/cleanup on a real database: what goes, what stays, and the counts reported. */
describe('history cleanup (POST /api/v1/history/cleanup)', () => {
  let h: WebHarness;
  let pg: Client;
  let seed: HistorySeed;
  let admin: Record<string, string>;

  beforeAll(async () => {
    h = await startWebApp();
    admin = { 'X-Api-Key': h.adminKey };
    pg = new Client({ connectionString: h.db.url });
    await pg.connect();
    seed = new HistorySeed(pg);
    await h.http.put('/api/v1/service-settings/History.RetentionPeriod').set(admin).send({ value: '1.00:00:00' }).expect(200);
  });

  afterAll(async () => {
    await pg?.end();
    await h?.close();
  });

  const ids = async (table: string): Promise<string[]> => (await pg.query(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id);
  const exists = async (activityId: string): Promise<boolean> =>
    Number((await pg.query(`SELECT count(*) FROM activity WHERE id = $1`, [activityId])).rows[0].count) === 1;
  const itemsOf = async (activityIds: string[]): Promise<number> =>
    Number(
      (await pg.query(`SELECT count(*) FROM activity_execution_item WHERE activity_id = ANY($1::uuid[])`, [activityIds])).rows[0].count,
    );
  const ago = (now: number, ms: number) => new Date(now - ms);

  async function cleanup() {
    const before = Date.now();
    const res = await h.http.post('/api/v1/history/cleanup').set(admin).expect(200);
    return { body: res.body, before, after: Date.now() };
  }

  /** A schedule execution in the given status whose RunProfile step ran `activityId`. */
  async function executionStep(activityId: string, status: ExecutionStatus): Promise<void> {
    const schedule = (await pg.query(`INSERT INTO schedule (name, trigger_type) VALUES ($1, 'Manual') RETURNING id`, [`S ${activityId}`]))
      .rows[0];
    const execution = (
      await pg.query(
        `INSERT INTO schedule_execution (schedule_id, schedule_name, status, total_steps, initiated_by_type) VALUES ($1, 'S', $2, 1, 'User') RETURNING id`,
        [schedule.id, status],
      )
    ).rows[0];
    await pg.query(
      `INSERT INTO schedule_execution_step (execution_id, step_index, name, step_type, execution_mode, status, activity_id)
       VALUES ($1, 1, 'Import', 'RunProfile', 'Sequential', $2, $3)`,
      [execution.id, status === ExecutionStatus.InProgress ? StepStatus.Waiting : StepStatus.Completed, activityId],
    );
  }

  it('deletes exactly the records and finished activities older than the retention period, and reports what it deleted', async () => {
    const now = Date.now();
    const csoOld = await seed.csoChanges([
      ago(now, 10 * DAY),
      ago(now, 3 * DAY),
      ago(now, 2 * DAY),
      ago(now, DAY + 2 * HOUR),
      ago(now, DAY + HOUR),
    ]);
    const csoNew = await seed.csoChanges([ago(now, 23 * HOUR), ago(now, HOUR)]);
    const mvoOld = await seed.mvoChanges([ago(now, 9 * DAY), ago(now, 4 * DAY), ago(now, DAY + 3 * HOUR)]);
    const mvoNew = await seed.mvoChanges([ago(now, 12 * HOUR)]);

    // A run still in progress, started three days ago: it and the records it wrote stay, however old.
    const running = await seed.activity({ created: ago(now, 3 * DAY), status: ActivityStatus.InProgress, items: 2 });
    const csoOfRunning = await seed.csoChanges([ago(now, 3 * DAY - MINUTE)], { activityId: running });
    const mvoOfRunning = await seed.mvoChanges([ago(now, 3 * DAY - 2 * MINUTE)], { activityId: running });

    const oldest = await seed.activity({ created: ago(now, 20 * DAY), items: 3 });
    const failed = await seed.activity({ created: ago(now, 2 * DAY), status: ActivityStatus.FailedWithError, items: 2 });
    const parent = await seed.activity({ created: ago(now, 5 * DAY), targetType: ActivityTargetType.ScheduleExecution });
    const child = await seed.activity({ created: ago(now, 5 * DAY - MINUTE), parentActivityId: parent, items: 1 });
    // An old parent with a recent child: deleting the parent would cascade to the child, so both stay.
    const keptParent = await seed.activity({ created: ago(now, 6 * DAY), targetType: ActivityTargetType.ScheduleExecution });
    const recentChild = await seed.activity({ created: ago(now, HOUR), parentActivityId: keptParent });
    // The run of a step of a schedule execution still running stays; one of a finished execution goes.
    const ofRunningExecution = await seed.activity({ created: ago(now, 4 * DAY), items: 2 });
    await executionStep(ofRunningExecution, ExecutionStatus.InProgress);
    const ofFinishedExecution = await seed.activity({ created: ago(now, 4 * DAY + HOUR) });
    await executionStep(ofFinishedExecution, ExecutionStatus.Completed);
    const recent = await seed.activity({ created: ago(now, HOUR), items: 1 });

    const { body, before, after } = await cleanup();

    expect(body).toEqual({
      csoChangesDeleted: 5,
      mvoChangesDeleted: 3,
      activitiesDeleted: 5,
      oldestRecordDeleted: ago(now, 20 * DAY).toISOString(),
      newestRecordDeleted: ago(now, DAY + HOUR).toISOString(),
      cutoffDate: expect.any(String),
      retentionPeriodDays: 1,
      batchSize: 1000,
    });
    const cutoff = Date.parse(body.cutoffDate);
    expect(cutoff).toBeGreaterThanOrEqual(before - DAY);
    expect(cutoff).toBeLessThanOrEqual(after - DAY);

    expect(await ids('connected_system_object_change')).toEqual([...csoNew, ...csoOfRunning].sort());
    expect(await ids('metaverse_object_change')).toEqual([...mvoNew, ...mvoOfRunning].sort());
    expect(csoOld.concat(mvoOld)).toHaveLength(8);
    for (const gone of [oldest, failed, parent, child, ofFinishedExecution])
      expect({ gone, exists: await exists(gone) }).toEqual({ gone, exists: false });
    for (const kept of [running, keptParent, recentChild, ofRunningExecution, recent])
      expect({ kept, exists: await exists(kept) }).toEqual({ kept, exists: true });
    expect(await itemsOf([oldest, failed, child])).toBe(0);
    expect(await itemsOf([running])).toBe(2);
    expect(await itemsOf([ofRunningExecution])).toBe(2);
    expect(await itemsOf([recent])).toBe(1);

    // Recorded as an activity naming who purged what (and never deleted by a cleanup).
    const { rows } = await pg.query(`SELECT * FROM activity WHERE target_type = $1`, [ActivityTargetType.HistoryRetentionCleanup]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: ActivityStatus.Complete,
      target_operation_type: 'Delete',
      initiated_by_type: InitiatedByType.ApiKey,
      initiated_by_name: 'Bootstrap administrator key',
      total_deleted: 13,
      message: `History cleanup deleted 5 connected system object change(s), 3 metaverse object change(s) and 5 activities older than ${body.cutoffDate} (retention 1 day(s)).`,
    });
    expect(rows[0].details).toEqual(body);
    expect(rows[0].completed).toBeInstanceOf(Date);
    // Claimed and heart-beating like a run, so the stale-run reaper ends one whose process died.
    expect(rows[0].claimed_by).toMatch(/:\d+$/);
    expect(rows[0].heartbeat_at).toEqual(rows[0].completed);

    // Nothing older is left: a second cleanup deletes nothing and says so.
    const again = await cleanup();
    expect(again.body).toMatchObject({
      csoChangesDeleted: 0,
      mvoChangesDeleted: 0,
      activitiesDeleted: 0,
      oldestRecordDeleted: null,
      newestRecordDeleted: null,
      retentionPeriodDays: 1,
    });
    expect(await exists(rows[0].id)).toBe(true);
  });

  it('deletes everything old in batches of History.CleanupBatchSize, counting each record once', async () => {
    await h.http.put('/api/v1/service-settings/History.CleanupBatchSize').set(admin).send({ value: 2 }).expect(200);
    const now = Date.now();
    const times = [1, 2, 3, 4, 5].map((i) => ago(now, 2 * DAY + i * HOUR));
    const survivorsBefore = { cso: await ids('connected_system_object_change'), mvo: await ids('metaverse_object_change') };
    await seed.csoChanges(times);
    await seed.mvoChanges(times);
    const activities: string[] = [];
    for (const t of times) activities.push(await seed.activity({ created: new Date(t.getTime() - MINUTE), items: 3 }));

    const { body } = await cleanup();

    expect(body).toMatchObject({
      csoChangesDeleted: 5,
      mvoChangesDeleted: 5,
      activitiesDeleted: 5,
      oldestRecordDeleted: new Date(times[4].getTime() - MINUTE).toISOString(),
      newestRecordDeleted: times[0].toISOString(),
      retentionPeriodDays: 1,
      batchSize: 2,
    });
    expect(await ids('connected_system_object_change')).toEqual(survivorsBefore.cso);
    expect(await ids('metaverse_object_change')).toEqual(survivorsBefore.mvo);
    for (const a of activities) expect(await exists(a)).toBe(false);
    expect(await itemsOf(activities)).toBe(0);
  });

  it('serialises concurrent cleanups: one deletes everything old, the other finds nothing left', async () => {
    const now = Date.now();
    const times = [1, 2, 3, 4, 5, 6, 7].map((i) => ago(now, 3 * DAY + i * MINUTE));
    await seed.csoChanges(times);
    await seed.mvoChanges(times.slice(0, 4));
    for (const t of times.slice(0, 3)) await seed.activity({ created: t, items: 2 });

    const [a, b] = await Promise.all([cleanup(), cleanup()]);

    const counts = [a.body, b.body]
      .map((r) => [r.csoChangesDeleted, r.mvoChangesDeleted, r.activitiesDeleted, r.oldestRecordDeleted, r.newestRecordDeleted])
      .sort((x, y) => (y[0] as number) - (x[0] as number));
    expect(counts).toEqual([
      [7, 4, 3, times[6].toISOString(), times[0].toISOString()],
      [0, 0, 0, null, null],
    ]);
  });

  it('is for administrators only: 401 without credentials, 403 without the Administrator role', async () => {
    const anonymous = await h.http.post('/api/v1/history/cleanup').expect(401);
    expect(anonymous.body.code).toBe('UNAUTHORISED');
    const reader = (await h.http.post('/api/v1/apikeys').set(admin).send({ name: 'no roles', roles: [] }).expect(201)).body;
    const forbidden = await h.http.post('/api/v1/history/cleanup').set('X-Api-Key', reader.key).expect(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    const { rows } = await pg.query(`SELECT count(*)::int AS n FROM activity WHERE target_type = $1`, [
      ActivityTargetType.HistoryRetentionCleanup,
    ]);
    // Two from the first test, one from the second, two from the concurrent one; none from the refused calls.
    expect(rows[0].n).toBe(5);
  });
});
