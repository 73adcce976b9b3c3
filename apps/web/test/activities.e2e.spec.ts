import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { expectErrorBody } from '@meridian/testing';
import { startWebApp, WebHarness } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE = '/api/v1/activities';

const SUMMARY_FIELDS = [
  'id',
  'parentActivityId',
  'created',
  'executed',
  'status',
  'targetType',
  'targetOperationType',
  'targetName',
  'targetContext',
  'message',
  'initiatedByType',
  'initiatedById',
  'initiatedByName',
  'objectsToProcess',
  'objectsProcessed',
  'executionTime',
  'totalActivityTime',
  'connectedSystemRunType',
  'childActivityCount',
  'totalAdded',
  'totalUpdated',
  'totalDeleted',
  'totalErrors',
];
const DETAIL_ONLY = [
  'totalProjected',
  'totalJoined',
  'totalAttributeFlows',
  'totalDisconnected',
  'totalProvisioned',
  'totalExported',
  'totalDeprovisioned',
  'totalPendingExports',
  'warningMessage',
  'errorMessage',
  'errorStackTrace',
  'connectedSystemId',
  'connectedSystemRunProfileId',
  'syncRuleId',
  'metaverseObjectId',
  'executionStats',
];

describe('activities (/api/v1/activities)', () => {
  let h: WebHarness;
  let db: Client;
  let operator: { id: string; key: string };
  const keys: Array<{ id: string; name: string }> = [];
  /** A run-profile activity with two children and 30 execution items, written as a worker would. */
  let run: { id: string; children: string[] };
  let emptyRun: string;
  let total: number;

  const list = (query: Record<string, string | number> = {}) => h.http.get(BASE).query(query).set('X-Api-Key', operator.key);
  const getPath = (path: string) => h.http.get(path).set('X-Api-Key', operator.key);

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    operator = (
      await h.http
        .post('/api/v1/apikeys')
        .set('X-Api-Key', h.adminKey)
        .send({ name: 'Activity reader', roles: ['Administrator'] })
        .expect(201)
    ).body;
    // 15 API keys created by the operator, 4 updates of the first, 8 changes and a revert of a setting.
    for (let i = 1; i <= 15; i++) {
      const name = `alpha-${String(i).padStart(2, '0')}`;
      keys.push((await h.http.post('/api/v1/apikeys').set('X-Api-Key', operator.key).send({ name }).expect(201)).body);
    }
    for (let i = 0; i < 4; i++) {
      await h.http
        .put(`/api/v1/apikeys/${keys[0].id}`)
        .set('X-Api-Key', operator.key)
        .send({ description: `revision ${i}` })
        .expect(200);
    }
    for (let i = 1; i <= 8; i++) {
      await h.http.put('/api/v1/service-settings/Export.MaxRetries').set('X-Api-Key', operator.key).send({ value: i }).expect(200);
    }
    await h.http.delete('/api/v1/service-settings/Export.MaxRetries').set('X-Api-Key', operator.key).expect(200);

    const parent = await db.query(
      `INSERT INTO activity (created, executed, completed, status, target_type, target_operation_type, target_name, target_context, initiated_by_type,
         initiated_by_name, objects_to_process, objects_processed, execution_time_ms, connected_system_run_type, connected_system_id,
         connected_system_run_profile_id, total_added, total_updated, total_deleted, total_projected, total_errors, execution_stats)
       VALUES (now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour' + interval '90 seconds', 'CompleteWithError',
         'ConnectedSystemRunProfile', 'Execute', 'HR full import', 'HR CSV', 'System', 'System', 30, 30, 75000, 'FullImport', 7, 3,
         25, 3, 1, 0, 2, '{"pagesRead": 1, "objectsPerSecond": 0.4}')
       RETURNING id`,
    );
    const children = await db.query(
      `INSERT INTO activity (parent_activity_id, created, executed, status, target_type, target_operation_type, target_name, initiated_by_type)
       VALUES ($1, now() - interval '50 minutes', NULL, 'FailedWithError', 'ConnectedSystemRunProfile', 'Execute', 'HR child one', 'System'),
              ($1, now() - interval '40 minutes', now() - interval '40 minutes', 'Complete', 'ConnectedSystemRunProfile', 'Execute', 'HR child two', 'System')
       RETURNING id`,
      [parent.rows[0].id],
    );
    await db.query(
      `INSERT INTO activity_execution_item (activity_id, external_id_value, display_name, connected_system_object_type, object_change_type, error_type, outcome_summary)
       SELECT $1, 'EMP' || lpad(i::text, 3, '0'), 'Person ' || i, 'person', CASE WHEN i % 10 = 0 THEN 'Delete' ELSE 'Add' END,
              CASE WHEN i IN (7, 21) THEN 'DuplicateObject' END, CASE WHEN i IN (7, 21) THEN NULL ELSE 'Projected:1,AttributeFlow:5' END
         FROM generate_series(1, 30) AS i ORDER BY i`,
      [parent.rows[0].id],
    );
    run = { id: parent.rows[0].id, children: children.rows.map((r) => r.id) };
    emptyRun = (
      await db.query(
        `INSERT INTO activity (status, target_type, target_operation_type, target_name, initiated_by_type)
       VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', 'HR delta import', 'System') RETURNING id`,
      )
    ).rows[0].id;
    total = Number((await db.query('SELECT count(*) FROM activity')).rows[0].count);
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  it("recorded what was done: the harness's 2 setting changes, 15 creations, 4 updates, 8 changes and a revert, plus the 4 seeded runs", () => {
    // The operator key's own creation (by the bootstrap key) adds one more.
    expect(total).toBe(2 + 1 + 15 + 4 + 8 + 1 + 4);
  });

  describe('list', () => {
    it('answers the paginated envelope with the defaults (page 1, pageSize 25)', async () => {
      const res = await list().expect(200);
      expect(Object.keys(res.body).sort()).toEqual([
        'hasNextPage',
        'hasPreviousPage',
        'items',
        'page',
        'pageSize',
        'totalCount',
        'totalPages',
      ]);
      expect(res.body).toMatchObject({
        totalCount: total,
        page: 1,
        pageSize: 25,
        totalPages: Math.ceil(total / 25),
        hasNextPage: true,
        hasPreviousPage: false,
      });
      expect(res.body.items).toHaveLength(25);
      for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual([...SUMMARY_FIELDS].sort());
    });

    it('pages through every activity exactly once', async () => {
      const pageSize = 10;
      const pages = Math.ceil(total / pageSize);
      const seen: string[] = [];
      for (let page = 1; page <= pages; page++) {
        const res = await list({ page, pageSize }).expect(200);
        expect(res.body).toMatchObject({
          totalCount: total,
          page,
          pageSize,
          totalPages: pages,
          hasNextPage: page < pages,
          hasPreviousPage: page > 1,
        });
        expect(res.body.items).toHaveLength(page < pages ? pageSize : total - pageSize * (pages - 1));
        seen.push(...res.body.items.map((a: { id: string }) => a.id));
      }
      expect(new Set(seen).size).toBe(total);
      const all = (await db.query('SELECT id FROM activity')).rows.map((r) => r.id);
      expect([...seen].sort()).toEqual(all.sort());

      const beyond = await list({ page: pages + 1, pageSize }).expect(200);
      expect(beyond.body).toMatchObject({
        items: [],
        totalCount: total,
        page: pages + 1,
        totalPages: pages,
        hasNextPage: false,
        hasPreviousPage: true,
      });
      expect((await list({ pageSize: 100 }).expect(200)).body.items).toHaveLength(total);
      expect((await list({ pageSize: 1 }).expect(200)).body).toMatchObject({ totalPages: total, hasNextPage: true });
    });

    it('sorts by created, ascending by default and descending on request', async () => {
      const asc = (await list({ pageSize: 100 }).expect(200)).body.items.map((a: { created: string }) => Date.parse(a.created));
      expect(asc).toEqual([...asc].sort((x, y) => x - y));
      const desc = (await list({ pageSize: 100, sortBy: 'created', sortDirection: 'desc' }).expect(200)).body.items.map(
        (a: { created: string }) => Date.parse(a.created),
      );
      expect(desc).toEqual([...asc].sort((x, y) => y - x));
      // The seeded run is an hour old: first ascending, last descending.
      expect((await list({ pageSize: 1 })).body.items[0].id).toBe(run.id);
      expect((await list({ pageSize: 1, sortDirection: 'desc', page: total })).body.items[0].id).toBe(run.id);
    });

    it('sorts by target name', async () => {
      const names = (await list({ search: 'alpha', sortBy: 'target', sortDirection: 'desc', pageSize: 100 }).expect(200)).body.items.map(
        (a: { targetName: string }) => a.targetName,
      );
      expect(names).toEqual([...names].sort().reverse());
      expect(names[0]).toBe('alpha-15');
      expect(names.slice(-5)).toEqual(Array(5).fill('alpha-01'));
    });

    it('sorts by type and by status', async () => {
      const types = (await list({ sortBy: 'type', pageSize: 100 }).expect(200)).body.items.map((a: { targetType: string }) => a.targetType);
      const groups = types.filter((t: string, i: number) => i === 0 || t !== types[i - 1]);
      expect(groups).toEqual(['ApiKey', 'ConnectedSystemRunProfile', 'ServiceSetting']);
      const statuses = (await list({ sortBy: 'status', sortDirection: 'desc', pageSize: 100 }).expect(200)).body.items.map(
        (a: { status: string }) => a.status,
      );
      expect(statuses.filter((s: string, i: number) => i === 0 || s !== statuses[i - 1])).toEqual([
        'InProgress',
        'FailedWithError',
        'CompleteWithError',
        'Complete',
      ]);
    });

    it('sorts by executed with never-executed activities last in both directions', async () => {
      for (const sortDirection of ['asc', 'desc']) {
        const items = (await list({ sortBy: 'executed', sortDirection, pageSize: 100 }).expect(200)).body.items;
        const executed = items.map((a: { executed: string | null }) => a.executed);
        const firstNull = executed.indexOf(null);
        expect(firstNull).toBe(total - 2);
        expect(executed.slice(firstNull)).toEqual([null, null]);
        const times = executed.slice(0, firstNull).map((e: string) => Date.parse(e));
        expect(times).toEqual([...times].sort((x, y) => (sortDirection === 'asc' ? x - y : y - x)));
      }
    });

    it('searches target names and types, case-insensitively, with wildcards taken literally', async () => {
      const alpha = (await list({ search: 'alpha', pageSize: 100 }).expect(200)).body;
      expect(alpha.totalCount).toBe(15 + 4);
      expect(alpha.items.every((a: { targetName: string }) => a.targetName.startsWith('alpha-'))).toBe(true);
      expect((await list({ search: 'ALPHA-0' }).expect(200)).body.totalCount).toBe(9 + 4);
      const settings = (await list({ search: 'servicesetting', pageSize: 100 }).expect(200)).body;
      expect(settings.totalCount).toBe(2 + 8 + 1);
      expect(settings.items.every((a: { targetType: string }) => a.targetType === 'ServiceSetting')).toBe(true);
      expect((await list({ search: 'HR child' }).expect(200)).body.totalCount).toBe(2);
      expect((await list({ search: 'nothing like this' }).expect(200)).body).toMatchObject({
        items: [],
        totalCount: 0,
        totalPages: 0,
        hasNextPage: false,
        hasPreviousPage: false,
      });
      for (const wildcard of ['%', '_', 'alpha-_1', '\\']) {
        expect((await list({ search: wildcard }).expect(200)).body.totalCount).toBe(0);
      }
      expect((await list({ search: '' }).expect(200)).body.totalCount).toBe(total);
      expect((await list({ search: 'alpha', page: 2, pageSize: 10 }).expect(200)).body).toMatchObject({
        totalCount: 19,
        totalPages: 2,
        items: expect.any(Array),
      });
    });

    it.each<[string, Record<string, string>, string]>([
      ['page 0', { page: '0' }, 'page'],
      ['a negative page', { page: '-1' }, 'page'],
      ['a page that is not a number', { page: 'abc' }, 'page'],
      ['a fractional page', { page: '1.5' }, 'page'],
      ['an astronomically large page', { page: '1e20' }, 'page'],
      ['pageSize 0', { pageSize: '0' }, 'pageSize'],
      ['pageSize 101', { pageSize: '101' }, 'pageSize'],
      ['a pageSize that is not a number', { pageSize: 'ten' }, 'pageSize'],
      ['an unknown sortBy', { sortBy: 'name' }, 'sortBy'],
      ['an unknown sortDirection', { sortDirection: 'up' }, 'sortDirection'],
      ['a search over 200 characters', { search: 's'.repeat(201) }, 'search'],
      ['an unknown parameter', { status: 'Complete' }, 'status'],
    ])('refuses %s with 400 VALIDATION_ERROR naming the parameter', async (_label, query, field) => {
      const res = await list(query);
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(Object.keys(res.body.validationErrors)).toContain(field);
      expect(res.body.path).toBe(BASE);
    });

    it('refuses a parameter given twice', async () => {
      expectErrorBody(await getPath(`${BASE}?page=1&page=2`), 400, 'VALIDATION_ERROR');
      expectErrorBody(await getPath(`${BASE}?search=a&search=b`), 400, 'VALIDATION_ERROR');
    });
  });

  describe('detail', () => {
    it('returns a configuration change with every detail field', async () => {
      const a = (await list({ search: 'alpha-02' }).expect(200)).body.items[0];
      const res = await getPath(`${BASE}/${a.id}`).expect(200);
      expect(Object.keys(res.body).sort()).toEqual([...SUMMARY_FIELDS, ...DETAIL_ONLY, 'targetId', 'details'].sort());
      expect(res.body).toMatchObject({
        ...a,
        targetType: 'ApiKey',
        targetOperationType: 'Create',
        targetName: 'alpha-02',
        targetId: keys[1].id,
        status: 'Complete',
        initiatedByType: 'ApiKey',
        initiatedById: operator.id,
        initiatedByName: 'Activity reader',
        parentActivityId: null,
        childActivityCount: 0,
        executionTime: '00:00:00',
        totalActivityTime: '00:00:00',
        executionStats: null,
        errorMessage: null,
        connectedSystemId: null,
      });
      expect(res.body.created).toMatch(ISO);
      expect(res.body.executed).toMatch(ISO);
    });

    it('returns a run-profile activity with its counters, timings and execution stats', async () => {
      const res = await getPath(`${BASE}/${run.id}`).expect(200);
      expect(res.body).toMatchObject({
        id: run.id,
        targetType: 'ConnectedSystemRunProfile',
        targetName: 'HR full import',
        targetContext: 'HR CSV',
        status: 'CompleteWithError',
        connectedSystemRunType: 'FullImport',
        connectedSystemId: 7,
        connectedSystemRunProfileId: 3,
        objectsToProcess: 30,
        objectsProcessed: 30,
        totalAdded: 25,
        totalUpdated: 3,
        totalDeleted: 1,
        totalErrors: 2,
        childActivityCount: 2,
        executionTime: '00:01:15',
        totalActivityTime: '00:01:30',
        executionStats: { pagesRead: 1, objectsPerSecond: 0.4 },
        initiatedByType: 'System',
      });
      const stats = await getPath(`${BASE}/${run.id}/stats`).expect(200);
      // Of the seeded document only objectsPerSecond is one of the runner's fields; pages and phases read as absent.
      expect(stats.body).toEqual({
        activityId: run.id,
        runType: 'FullImport',
        status: 'CompleteWithError',
        objectsToProcess: 30,
        objectsProcessed: 30,
        pages: null,
        objectsPerSecond: 0.4,
        phases: [],
        outcomes: { AttributeFlow: 140, Projected: 28 },
        errors: { DuplicateObject: 2 },
        totals: {
          totalAdded: 25,
          totalUpdated: 3,
          totalDeleted: 1,
          totalProjected: 0,
          totalJoined: 0,
          totalAttributeFlows: 0,
          totalDisconnected: 0,
          totalProvisioned: 0,
          totalExported: 0,
          totalDeprovisioned: 0,
          totalPendingExports: 0,
          totalErrors: 2,
        },
      });
    });

    it('answers 404 for an activity that does not exist and 400 for an id that is not a UUID', async () => {
      const missing = randomUUID();
      for (const suffix of ['', '/stats', '/items', '/children']) {
        const res = await getPath(`${BASE}/${missing}${suffix}`);
        expectErrorBody(res, 404, 'NOT_FOUND');
        expect(res.body.message).toContain(missing);
        for (const bad of ['abc', '123', `${missing}0`, 'null']) {
          const invalid = await getPath(`${BASE}/${bad}${suffix}`);
          expectErrorBody(invalid, 400, 'VALIDATION_ERROR');
          expect(invalid.body.validationErrors).toHaveProperty('id');
        }
      }
      await getPath(`${BASE}/${run.id.toUpperCase()}`).expect(200);
    });
  });

  describe('items', () => {
    it('pages through the execution items of a run-profile activity in processing order', async () => {
      const first = await getPath(`${BASE}/${run.id}/items`).expect(200);
      expect(first.body).toMatchObject({ totalCount: 30, page: 1, pageSize: 25, totalPages: 2, hasNextPage: true, hasPreviousPage: false });
      expect(first.body.items).toHaveLength(25);
      expect(Object.keys(first.body.items[0]).sort()).toEqual(
        [
          'connectedSystemObjectType',
          'displayName',
          'errorMessage',
          'errorType',
          'externalIdValue',
          'id',
          'objectChangeType',
          'outcomeSummary',
        ].sort(),
      );
      expect(first.body.items[6]).toMatchObject({
        externalIdValue: 'EMP007',
        displayName: 'Person 7',
        errorType: 'DuplicateObject',
        outcomeSummary: null,
        objectChangeType: 'Add',
      });
      expect(first.body.items[9]).toMatchObject({
        externalIdValue: 'EMP010',
        objectChangeType: 'Delete',
        outcomeSummary: 'Projected:1,AttributeFlow:5',
      });
      const second = await h.http.get(`${BASE}/${run.id}/items`).query({ page: 2 }).set('X-Api-Key', operator.key).expect(200);
      expect(second.body).toMatchObject({ page: 2, totalPages: 2, hasNextPage: false, hasPreviousPage: true });
      const ids = [...first.body.items, ...second.body.items].map((i: { externalIdValue: string }) => i.externalIdValue);
      expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => `EMP${String(i + 1).padStart(3, '0')}`));
      const all = await h.http.get(`${BASE}/${run.id}/items`).query({ pageSize: 100 }).set('X-Api-Key', operator.key).expect(200);
      expect(all.body.items).toHaveLength(30);
    });

    it('answers an empty page for a run-profile activity without items', async () => {
      const res = await getPath(`${BASE}/${emptyRun}/items`).expect(200);
      expect(res.body).toEqual({
        items: [],
        totalCount: 0,
        page: 1,
        pageSize: 25,
        totalPages: 0,
        hasNextPage: false,
        hasPreviousPage: false,
      });
    });

    it('answers 400 BAD_REQUEST for an activity that is not a run-profile activity', async () => {
      const change = (await list({ search: 'alpha-03' }).expect(200)).body.items[0];
      const res = await getPath(`${BASE}/${change.id}/items`);
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(res.body.message).toMatch(/run-profile/);
    });

    it.each([
      ['page', '0'],
      ['pageSize', '101'],
      ['pageSize', '0'],
      ['page', 'x'],
      ['sortBy', 'created'],
    ])('refuses %s=%s with 400 VALIDATION_ERROR', async (name, value) => {
      const res = await h.http
        .get(`${BASE}/${run.id}/items`)
        .query({ [name]: value })
        .set('X-Api-Key', operator.key);
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(res.body.validationErrors).toHaveProperty(name);
    });
  });

  describe('children', () => {
    it('returns the child activities as an array, oldest first', async () => {
      const res = await getPath(`${BASE}/${run.id}/children`).expect(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.map((a: { id: string }) => a.id)).toEqual(run.children);
      expect(res.body.map((a: { targetName: string }) => a.targetName)).toEqual(['HR child one', 'HR child two']);
      for (const child of res.body) {
        expect(child.parentActivityId).toBe(run.id);
        expect(Object.keys(child).sort()).toEqual([...SUMMARY_FIELDS].sort());
      }
      expect((await getPath(`${BASE}/${run.children[0]}`).expect(200)).body).toMatchObject({
        parentActivityId: run.id,
        executed: null,
        executionTime: null,
        totalActivityTime: null,
      });
    });

    it('returns an empty array when there are none', async () => {
      const change = (await list({ search: 'alpha-04' }).expect(200)).body.items[0];
      expect((await getPath(`${BASE}/${change.id}/children`).expect(200)).body).toEqual([]);
      expect((await getPath(`${BASE}/${run.children[1]}/children`).expect(200)).body).toEqual([]);
    });
  });

  describe('access', () => {
    it('needs credentials (401) and the Administrator role (403) on every activity endpoint', async () => {
      const reader = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'no roles' }).expect(201)).body;
      for (const path of [BASE, `${BASE}/${run.id}`, `${BASE}/${run.id}/stats`, `${BASE}/${run.id}/items`, `${BASE}/${run.id}/children`]) {
        expectErrorBody(await h.http.get(path), 401, 'UNAUTHORISED');
        expectErrorBody(await h.http.get(path).set('X-Api-Key', reader.key), 403, 'FORBIDDEN');
      }
    });

    it('is read-only: other methods answer 405 with Allow', async () => {
      for (const [method, path] of [
        ['post', BASE],
        ['delete', `${BASE}/${run.id}`],
        ['put', `${BASE}/${run.id}`],
      ] as const) {
        const res = await h.http[method](path).set('X-Api-Key', operator.key);
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe('GET');
      }
      expect(Number((await db.query('SELECT count(*) FROM activity')).rows[0].count)).toBeGreaterThanOrEqual(total);
    });
  });
});
