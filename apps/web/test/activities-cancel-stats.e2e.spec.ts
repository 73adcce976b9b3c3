import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/activities';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Res {
  status: number;
  body: any;
}

function expectError(res: Res, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(typeof res.body.message).toBe('string');
}

describe('activities: cancel and run statistics', () => {
  let h: WebHarness;
  let db: Client;

  const post = (path: string, key = h.adminKey) => h.http.post(path).set('X-Api-Key', key);
  const get = (path: string, key = h.adminKey) => h.http.get(path).set('X-Api-Key', key);
  const activityCount = async () => Number((await db.query('SELECT count(*) FROM activity')).rows[0].count);
  const row = async (id: string) => (await db.query('SELECT * FROM activity WHERE id = $1', [id])).rows[0];
  /** An activity as the web app or a worker writes it. */
  const seed = async (fields: Record<string, unknown>): Promise<string> => {
    const values = {
      status: 'InProgress',
      target_type: 'ConnectedSystemRunProfile',
      target_operation_type: 'Execute',
      target_name: 'HR full import',
      initiated_by_type: 'System',
      connected_system_run_type: 'FullImport',
      ...fields,
    };
    const columns = Object.keys(values);
    const { rows } = await db.query(
      `INSERT INTO activity (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      Object.values(values),
    );
    return rows[0].id;
  };

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('POST /activities/{id}/cancel', () => {
    it('cancels a queued run at once: Cancelled, completed, "Cancelled before it started." — and records nothing else', async () => {
      const id = await seed({ message: 'Queued.' });
      const before = await activityCount();
      const res = await post(`${BASE}/${id}/cancel`).expect(200);
      expect(res.body).toMatchObject({
        id,
        status: 'Cancelled',
        message: 'Cancelled before it started.',
        targetType: 'ConnectedSystemRunProfile',
        executed: null,
      });
      expect(res.body.totalActivityTime).toMatch(/^\d{2}:\d{2}:\d{2}/);
      // The shape of GET /activities/{id}.
      expect(Object.keys(res.body).sort()).toEqual(Object.keys((await get(`${BASE}/${id}`).expect(200)).body).sort());
      const stored = await row(id);
      expect(stored).toMatchObject({ status: 'Cancelled', cancel_requested: true, claimed_at: null });
      expect(stored.completed).toBeInstanceOf(Date);
      expect(await activityCount()).toBe(before);
    });

    it('asks a claimed run to stop: it stays InProgress with the flag set until its worker ends it', async () => {
      const id = await seed({
        claimed_at: new Date(),
        claimed_by: 'worker-1:42',
        executed: new Date(),
        heartbeat_at: new Date(),
        message: 'Page 3 of 10.',
      });
      const res = await post(`${BASE}/${id}/cancel`).expect(200);
      expect(res.body).toMatchObject({ id, status: 'InProgress', message: 'Page 3 of 10.', totalActivityTime: null });
      expect(await row(id)).toMatchObject({ status: 'InProgress', cancel_requested: true, completed: null });
      // Asking again while it winds down is harmless.
      expect((await post(`${BASE}/${id}/cancel`).expect(200)).body.status).toBe('InProgress');
      // The worker's answer at its next page boundary.
      await db.query(`UPDATE activity SET status = 'Cancelled', completed = now() WHERE id = $1`, [id]);
      expectError(await post(`${BASE}/${id}/cancel`), 400, 'BAD_REQUEST');
    });

    it.each(['Complete', 'CompleteWithWarning', 'CompleteWithError', 'FailedWithError', 'Cancelled'])(
      'refuses a finished (%s) run with 400 BAD_REQUEST',
      async (status) => {
        const id = await seed({ status, completed: new Date() });
        const res = await post(`${BASE}/${id}/cancel`);
        expectError(res, 400, 'BAD_REQUEST');
        expect(res.body.message).toContain(status);
        expect(await row(id)).toMatchObject({ status, cancel_requested: false });
      },
    );

    it('refuses an activity that is not a run-profile activity with 400 BAD_REQUEST, even while InProgress', async () => {
      const deletion = await seed({ target_type: 'ConnectedSystem', target_operation_type: 'Delete', connected_system_run_type: null });
      const res = await post(`${BASE}/${deletion}/cancel`);
      expectError(res, 400, 'BAD_REQUEST');
      expect(res.body.message).toMatch(/run-profile/);
      expect(await row(deletion)).toMatchObject({ status: 'InProgress', cancel_requested: false });
      const change = await seed({
        status: 'Complete',
        target_type: 'ApiKey',
        target_operation_type: 'Create',
        connected_system_run_type: null,
      });
      expectError(await post(`${BASE}/${change}/cancel`), 400, 'BAD_REQUEST');
    });

    it('answers 404 for an unknown activity and 400 for an id that is not a UUID', async () => {
      const missing = randomUUID();
      const res = await post(`${BASE}/${missing}/cancel`);
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.message).toContain(missing);
      const invalid = await post(`${BASE}/not-a-uuid/cancel`);
      expectError(invalid, 400, 'VALIDATION_ERROR');
      expect(invalid.body.validationErrors).toHaveProperty('id');
    });
  });

  describe('GET /activities/{id}/stats', () => {
    it("aggregates the execution items by outcome and error type, with the runner's pages, phases and throughput", async () => {
      const id = await seed({
        status: 'CompleteWithError',
        objects_to_process: 12,
        objects_processed: 12,
        connected_system_run_type: 'FullSynchronisation',
        total_projected: 4,
        total_joined: 3,
        total_attribute_flows: 2,
        total_pending_exports: 5,
        total_errors: 3,
        execution_stats: JSON.stringify({
          pages: 3,
          objectsPerSecond: 250.5,
          phases: [{ name: 'Load', seconds: 0.4 }, { name: 'Synchronise', seconds: 1.2 }, { name: 'bogus' }],
        }),
      });
      const items: Array<[string | null, string | null]> = [
        ['Projected:1,AttributeFlow:5,PendingExportCreated:1', null],
        ['Projected:1,AttributeFlow:7', null],
        ['Projected:1, AttributeFlow:3 ,PendingExportCreated:2', null],
        ['Projected:1', null],
        ['Joined:1,AttributeFlow:2', null],
        ['Joined:1', null],
        ['Joined:1,PendingExportCreated:2', null],
        ['AttributeFlow:4', null],
        ['AttributeFlow:1,not a pair,Broken:,:3', null],
        [null, 'AmbiguousMatch'],
        [null, 'AmbiguousMatch'],
        [null, 'ExpressionEvaluationError'],
      ];
      for (const [outcome, error] of items) {
        await db.query(
          `INSERT INTO activity_execution_item (activity_id, object_change_type, outcome_summary, error_type) VALUES ($1, 'Update', $2, $3)`,
          [id, outcome, error],
        );
      }
      const res = await get(`${BASE}/${id}/stats`).expect(200);
      expect(res.body).toEqual({
        activityId: id,
        runType: 'FullSynchronisation',
        status: 'CompleteWithError',
        objectsToProcess: 12,
        objectsProcessed: 12,
        pages: 3,
        objectsPerSecond: 250.5,
        phases: [
          { name: 'Load', seconds: 0.4 },
          { name: 'Synchronise', seconds: 1.2 },
        ],
        outcomes: { AttributeFlow: 22, Joined: 3, PendingExportCreated: 5, Projected: 4 },
        errors: { AmbiguousMatch: 2, ExpressionEvaluationError: 1 },
        totals: {
          totalAdded: 0,
          totalUpdated: 0,
          totalDeleted: 0,
          totalProjected: 4,
          totalJoined: 3,
          totalAttributeFlows: 2,
          totalDisconnected: 0,
          totalProvisioned: 0,
          totalExported: 0,
          totalDeprovisioned: 0,
          totalPendingExports: 5,
          totalErrors: 3,
        },
      });
    });

    it('reads a run without items or runner statistics as empty', async () => {
      const id = await seed({ execution_stats: null });
      expect((await get(`${BASE}/${id}/stats`).expect(200)).body).toMatchObject({
        activityId: id,
        status: 'InProgress',
        pages: null,
        objectsPerSecond: null,
        phases: [],
        outcomes: {},
        errors: {},
        totals: expect.objectContaining({ totalErrors: 0 }),
      });
      const odd = await seed({ execution_stats: JSON.stringify({ pages: 'three', phases: 'none', objectsPerSecond: null }) });
      expect((await get(`${BASE}/${odd}/stats`).expect(200)).body).toMatchObject({ pages: null, objectsPerSecond: null, phases: [] });
    });

    it('answers 400 BAD_REQUEST for an activity that is not a run-profile activity, 404 for an unknown one', async () => {
      const change = await seed({
        status: 'Complete',
        target_type: 'ServiceSetting',
        target_operation_type: 'Update',
        connected_system_run_type: null,
      });
      const res = await get(`${BASE}/${change}/stats`);
      expectError(res, 400, 'BAD_REQUEST');
      expect(res.body.message).toMatch(/run-profile/);
      expectError(await get(`${BASE}/${randomUUID()}/stats`), 404, 'NOT_FOUND');
    });
  });

  it('needs credentials (401) and the Administrator role (403)', async () => {
    const id = await seed({});
    const reader = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'no roles' }).expect(201)).body;
    for (const [method, path] of [
      ['post', `${BASE}/${id}/cancel`],
      ['get', `${BASE}/${id}/stats`],
    ] as const) {
      expectError(await h.http[method](path), 401, 'UNAUTHORISED');
      const forbidden = await h.http[method](path).set('X-Api-Key', reader.key);
      expectError(forbidden, 403, 'FORBIDDEN');
      expect(forbidden.body.timestamp).toMatch(ISO);
    }
    expect(await row(id)).toMatchObject({ status: 'InProgress', cancel_requested: false });
  });
});
