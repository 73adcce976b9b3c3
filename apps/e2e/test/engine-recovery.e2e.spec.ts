import { unwrap } from '@meridian/api-client';
import { hrRecord, writeHrCsv } from '@meridian/testing';
import { readdirSync } from 'node:fs';
import {
  Activity,
  configurePipeline,
  DIRECTORY_COLUMNS,
  EngineStack,
  expectedDirectoryRow,
  PipelineIds,
  readCsv,
  writeHrRecords,
} from './engine-stack';

/** HR rows of the recovery tests (MERIDIAN_E2E_RECOVERY_ROWS overrides). */
const TOTAL = Number(process.env.MERIDIAN_E2E_RECOVERY_ROWS ?? 100_000);
const PAGE_SIZE = 1000;
const STALE_TASK_TIMEOUT = '00:00:30';
/** Reaping takes the stale timeout plus up to one housekeeping interval (30 s). */
const REAP_WITHIN_MS = 150_000;
const RUN_WITHIN_MS = 240_000;
/** A test waits for runs and for the reaper. */
const TEST_TIMEOUT_MS = 600_000;

/**
 * Crash recovery, cancellation and mutual exclusion of runs with the built processes and a large HR
 * file: a worker killed in the middle of an import, a synchronisation or an export leaves a run that
 * the reaper fails, and running it again ends with exactly one object per HR row everywhere.
 */
describe('engine recovery: killed workers, cancellation, two workers (real processes)', () => {
  let stack: EngineStack;
  let ids: PipelineIds;
  const hrFile = () => stack.path('hr/people.csv');

  beforeAll(async () => {
    stack = await EngineStack.start('e2erecovery');
    await writeHrCsv(hrFile(), TOTAL);
    ids = await configurePipeline(stack, PAGE_SIZE);
    const setting = await unwrap(
      stack.api.PUT('/api/v1/service-settings/{key}', {
        params: { path: { key: 'Worker.StaleTaskTimeout' } },
        body: { value: STALE_TASK_TIMEOUT },
      }),
    );
    expect(setting).toMatchObject({ effectiveValue: STALE_TASK_TIMEOUT });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /**
   * Waits until the run is well into its objects (a quarter, by its progress), then kills its worker
   * outright and starts a fresh one.
   */
  async function killMidRun(activityId: string): Promise<Activity> {
    let seen: Activity | null = null;
    for (const until = Date.now() + RUN_WITHIN_MS; Date.now() < until && !seen;) {
      const a = await stack.activity(activityId);
      if (a.status !== 'InProgress') throw new Error(`The run ended (${a.status}) before it could be interrupted: ${a.message}`);
      if (a.objectsProcessed >= TOTAL / 4 && a.objectsProcessed < TOTAL) seen = a;
      else await new Promise((r) => setTimeout(r, 50));
    }
    if (!seen) throw new Error('The run made no visible progress.');
    const { claimed_by: claimedBy } = await stack.one(`SELECT claimed_by FROM activity WHERE id = $1`, [activityId]);
    const victim = stack.liveWorkers().find((w) => claimedBy.endsWith(`:${w.child.pid}`));
    expect(victim).toBeDefined();
    await victim!.stop('SIGKILL');
    stack.startWorker();
    return seen;
  }

  /** The reaper fails the run of the dead worker. */
  async function reaped(activityId: string): Promise<Activity> {
    const failed = await stack.finished(activityId, REAP_WITHIN_MS);
    expect(failed).toMatchObject({
      status: 'FailedWithError',
      errorMessage: expect.stringMatching(/worker running this activity stopped reporting/),
    });
    expect(failed.objectsProcessed).toBeLessThan(TOTAL);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await stack.activity(activityId)).status).toBe('FailedWithError');
    return failed;
  }

  const csoCounts = (systemId: number) =>
    stack
      .one<{ n: string; distinct_ids: string; joined: string; distinct_mvos: string }>(
        `SELECT count(*) AS n, count(DISTINCT external_id) AS distinct_ids, count(metaverse_object_id) AS joined, count(DISTINCT metaverse_object_id) AS distinct_mvos
       FROM connected_system_object WHERE connected_system_id = $1`,
        [systemId],
      )
      .then((r) => ({
        n: Number(r.n),
        distinctIds: Number(r.distinct_ids),
        joined: Number(r.joined),
        distinctMvos: Number(r.distinct_mvos),
      }));

  it(
    'a worker killed during the full import: the run is reaped, and running it again imports every row exactly once',
    async () => {
      const id = await stack.execute(ids.hr.id, ids.hr.profiles.FullImport);
      const interrupted = await killMidRun(id);
      expect(interrupted.objectsProcessed).toBeGreaterThan(0);
      await reaped(id);
      const committed = await csoCounts(ids.hr.id);
      // Whole pages were committed: at least what the run had reported, never a part of a page.
      expect(committed.n).toBeGreaterThanOrEqual(interrupted.totalAdded);
      expect(committed.n % PAGE_SIZE).toBe(0);
      expect(committed.n).toBeLessThan(TOTAL);
      expect(committed.distinctIds).toBe(committed.n);

      const again = await stack.run(ids.hr.id, ids.hr.profiles.FullImport, RUN_WITHIN_MS);
      expect(again).toMatchObject({
        status: 'Complete',
        objectsProcessed: TOTAL,
        totalAdded: TOTAL - committed.n,
        totalUpdated: 0,
        totalDeleted: 0,
        totalErrors: 0,
      });
      expect(await csoCounts(ids.hr.id)).toEqual({ n: TOTAL, distinctIds: TOTAL, joined: 0, distinctMvos: 0 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a worker killed during the full synchronisation: running it again projects and provisions each HR row exactly once',
    async () => {
      const id = await stack.execute(ids.hr.id, ids.hr.profiles.FullSynchronisation);
      const interrupted = await killMidRun(id);
      await reaped(id);
      const users = await stack.count(`SELECT count(*) FROM metaverse_object WHERE type_id = $1`, [ids.userTypeId]);
      expect(users).toBeGreaterThanOrEqual(interrupted.totalProjected);
      expect(users % PAGE_SIZE).toBe(0);
      expect(users).toBeLessThan(TOTAL);
      expect((await csoCounts(ids.hr.id)).joined).toBe(users);

      const again = await stack.run(ids.hr.id, ids.hr.profiles.FullSynchronisation, RUN_WITHIN_MS);
      expect(again).toMatchObject({
        status: 'Complete',
        objectsProcessed: TOTAL,
        totalProjected: TOTAL - users,
        totalProvisioned: TOTAL - users,
        totalPendingExports: TOTAL - users,
        totalJoined: 0,
        totalDeleted: 0,
        totalErrors: 0,
      });
      expect(await stack.count(`SELECT count(*) FROM metaverse_object WHERE type_id = $1`, [ids.userTypeId])).toBe(TOTAL);
      expect(await csoCounts(ids.hr.id)).toEqual({ n: TOTAL, distinctIds: TOTAL, joined: TOTAL, distinctMvos: TOTAL });
      const directory = await csoCounts(ids.directory.id);
      expect(directory).toEqual({ n: TOTAL, distinctIds: 0, joined: TOTAL, distinctMvos: TOTAL });
      expect(
        await stack.one(
          `SELECT count(*)::int AS n, count(DISTINCT connected_system_object_id)::int AS objects,
                                   count(*) FILTER (WHERE change_type = 'Create' AND status = 'Pending')::int AS creates
                              FROM pending_export WHERE connected_system_id = $1`,
          [ids.directory.id],
        ),
      ).toEqual({ n: TOTAL, objects: TOTAL, creates: TOTAL });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a worker killed during the export: the file is left as it was, and running it again writes each row exactly once',
    async () => {
      const id = await stack.execute(ids.directory.id, ids.directory.profiles.Export);
      await killMidRun(id);
      await reaped(id);
      expect(readCsv(stack.path('directory/users.csv')).rows).toHaveLength(0);

      const again = await stack.run(ids.directory.id, ids.directory.profiles.Export, RUN_WITHIN_MS);
      expect(again).toMatchObject({
        status: 'Complete',
        objectsProcessed: TOTAL,
        totalExported: TOTAL,
        totalDeprovisioned: 0,
        totalErrors: 0,
      });
      const file = readCsv(stack.path('directory/users.csv'));
      expect(file.header).toEqual([...DIRECTORY_COLUMNS]);
      expect(file.rows).toHaveLength(TOTAL);
      const rows = new Map(file.rows.map((r) => [r.employeeId, r]));
      expect(rows.size).toBe(TOTAL);
      const wrong: string[] = [];
      for (let i = 1; i <= TOTAL; i++) {
        const expected = expectedDirectoryRow(hrRecord(i));
        if (JSON.stringify(rows.get(expected.employeeId)) !== JSON.stringify(expected)) wrong.push(expected.employeeId);
      }
      expect(wrong.slice(0, 10)).toEqual([]);
      expect(await csoCounts(ids.directory.id)).toEqual({ n: TOTAL, distinctIds: TOTAL, joined: TOTAL, distinctMvos: TOTAL });
      const pendingExports = await unwrap(
        stack.api.GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/pending-exports', {
          params: { path: { connectedSystemId: ids.directory.id }, query: { pageSize: 1 } },
        }),
      );
      expect(pendingExports.totalCount).toBe(0);

      const nothingLeft = await stack.run(ids.directory.id, ids.directory.profiles.Export, RUN_WITHIN_MS);
      expect(nothingLeft).toMatchObject({ status: 'Complete', objectsProcessed: 0, totalExported: 0 });
      expect(readCsv(stack.path('directory/users.csv')).rows).toHaveLength(TOTAL);
      // The killed session left only its hidden spool behind, never a second file.
      expect(readdirSync(stack.path('directory')).filter((f) => !f.startsWith('.'))).toEqual(['users.csv']);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a cancelled import ends Cancelled and stays so; what it committed stays, and the next import completes the rest exactly',
    async () => {
      const movers = Math.floor(TOTAL / 10);
      const records = Array.from({ length: TOTAL }, (_, i) => hrRecord(i + 1));
      for (let i = 0; i < TOTAL; i += 10) records[i] = { ...records[i], title: 'Moved' };
      writeHrRecords(hrFile(), records);

      const id = await stack.execute(ids.hr.id, ids.hr.profiles.FullImport);
      for (;;) {
        const a = await stack.activity(id);
        expect(a.status).toBe('InProgress');
        if (a.objectsProcessed > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const cancel = () => stack.api.POST('/api/v1/activities/{id}/cancel', { params: { path: { id } } });
      const asked = await unwrap(cancel());
      expect(asked).toMatchObject({ id, status: 'InProgress' });
      const cancelled = await stack.finished(id, RUN_WITHIN_MS);
      expect(cancelled).toMatchObject({ status: 'Cancelled', totalAdded: 0, totalDeleted: 0, totalErrors: 0 });
      expect(cancelled.objectsProcessed).toBeLessThan(TOTAL);
      expect(cancelled.totalUpdated).toBeGreaterThan(0);
      expect(cancelled.totalUpdated).toBeLessThan(movers);
      const completedAt = async () => (await stack.one(`SELECT completed FROM activity WHERE id = $1`, [id])).completed.toISOString();
      const ended = await completedAt();
      await new Promise((r) => setTimeout(r, 3000));
      expect(await stack.activity(id)).toMatchObject({
        status: 'Cancelled',
        objectsProcessed: cancelled.objectsProcessed,
        totalUpdated: cancelled.totalUpdated,
      });
      expect(await completedAt()).toBe(ended);
      expect((await cancel()).response.status).toBe(400);

      const next = await stack.run(ids.hr.id, ids.hr.profiles.FullImport, RUN_WITHIN_MS);
      expect(next).toMatchObject({
        status: 'Complete',
        objectsProcessed: TOTAL,
        totalAdded: 0,
        totalDeleted: 0,
        totalErrors: 0,
        totalUpdated: movers - cancelled.totalUpdated,
      });
      expect(await csoCounts(ids.hr.id)).toEqual({ n: TOTAL, distinctIds: TOTAL, joined: TOTAL, distinctMvos: TOTAL });
      expect(
        await stack.count(`SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1 AND sync_pending`, [ids.hr.id]),
      ).toBe(movers);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'two workers never run two runs of one system at once: the second waits, saying for what, then runs',
    async () => {
      // Two workers taking one job at a time: while one runs the first import, only the other can take the second.
      const previous = stack.liveWorkers();
      const pair = [stack.startWorker({ MERIDIAN_WORKER_CONCURRENCY: '1' }), stack.startWorker({ MERIDIAN_WORKER_CONCURRENCY: '1' })];
      for (const w of pair) await stack.workerReady(w);
      for (const w of previous) await w.stop();
      expect(stack.liveWorkers()).toEqual(pair);
      const first = await stack.execute(ids.hr.id, ids.hr.profiles.FullImport);
      const second = await stack.execute(ids.hr.id, ids.hr.profiles.FullImport);
      const waitingMessages = new Set<string>();
      for (const until = Date.now() + RUN_WITHIN_MS; ;) {
        const [a, b] = await Promise.all([stack.activity(first), stack.activity(second)]);
        if (b.status === 'InProgress' && !b.executed && b.message?.startsWith('Waiting')) waitingMessages.add(b.message);
        if (a.status === 'InProgress' && !a.executed && a.message?.startsWith('Waiting')) waitingMessages.add(a.message);
        if (a.status !== 'InProgress' && b.status !== 'InProgress') break;
        if (Date.now() > until) throw new Error('The two runs did not finish in time.');
        await new Promise((r) => setTimeout(r, 100));
      }
      const runs = await stack.sql.query(
        `SELECT id, status, executed, completed, claimed_by FROM activity WHERE id = ANY($1) ORDER BY executed`,
        [[first, second]],
      );
      expect(runs.rows.map((r) => r.status)).toEqual(['Complete', 'Complete']);
      const [earlier, later] = runs.rows;
      expect(later.executed.getTime()).toBeGreaterThanOrEqual(earlier.completed.getTime());
      expect([...waitingMessages]).toEqual([`Waiting for another run of "HR" to finish (activity ${earlier.id}, FullImport).`]);
      expect(pair.map((w) => w.child.pid)).toContain(Number(earlier.claimed_by.split(':').pop()));
      for (const id of [first, second]) {
        expect(await stack.activity(id)).toMatchObject({
          objectsProcessed: TOTAL,
          totalAdded: 0,
          totalUpdated: 0,
          totalDeleted: 0,
          totalErrors: 0,
        });
      }
    },
    TEST_TIMEOUT_MS,
  );
});
