import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobQueue, RUNS_QUEUE } from '@meridian/jobs';
import { authorisedRequest, HttpMethod, statusAndBody } from '@meridian/testing';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/synchronisation/connected-systems';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Res {
  status: number;
  body: any;
}

function expectValidation(res: Res, field: string, message?: RegExp): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  expect(Object.keys(res.body.validationErrors ?? {})).toContain(field);
  if (message) expect(res.body.validationErrors[field].join(' ')).toMatch(message);
}

describe('Run profiles (/api/v1/synchronisation/connected-systems/{id}/run-profiles)', () => {
  let h: WebHarness;
  let db: Client;
  let files: string;
  let seq = 0;

  const api = (method: HttpMethod, path: string, body?: unknown): Promise<Res> =>
    authorisedRequest(h.http, h.adminKey, method, path, body).then(statusAndBody);
  const system = async (mode = 'Import') => {
    seq += 1;
    const res = await api('post', BASE, { name: `System ${seq}`, connectorType: 'File', settings: { filePath: 'hr/people.csv', mode } });
    expect(res.status).toBe(201);
    return res.body;
  };
  const profiles = (systemId: number) => `${BASE}/${systemId}/run-profiles`;
  const lastActivity = async (systemId: number) =>
    (await db.query(`SELECT * FROM activity WHERE connected_system_id = $1 ORDER BY created DESC, id DESC LIMIT 1`, [systemId])).rows[0];

  beforeAll(async () => {
    files = mkdtempSync(join(tmpdir(), 'meridian-rp-files-'));
    h = await startWebApp({ MERIDIAN_CONNECTOR_FILES_ROOT: files });
    db = new Client({ connectionString: h.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
    rmSync(files, { recursive: true, force: true });
  });

  it('creates, lists, reads, updates and deletes a run profile, each change an activity', async () => {
    const s = await system();
    const created = await api('post', profiles(s.id), { name: 'Full import', runType: 'FullImport', filePath: 'hr/override.csv' });
    expect(created).toEqual({
      status: 201,
      body: {
        id: expect.any(Number),
        connectedSystemId: s.id,
        name: 'Full import',
        runType: 'FullImport',
        pageSize: 1000,
        filePath: 'hr/override.csv',
        created: expect.stringMatching(ISO),
        lastUpdated: null,
      },
    });
    expect(await lastActivity(s.id)).toMatchObject({
      target_type: 'ConnectedSystemRunProfile',
      target_operation_type: 'Create',
      target_name: 'Full import',
      target_context: s.name,
      connected_system_run_profile_id: created.body.id,
      status: 'Complete',
    });
    const sync = (await api('post', profiles(s.id), { name: 'Delta sync', runType: 'deltasynchronisation', pageSize: 250 })).body;
    expect(sync).toMatchObject({ runType: 'DeltaSynchronisation', pageSize: 250, filePath: null });

    expect(await api('get', profiles(s.id))).toEqual({ status: 200, body: [sync, created.body] });
    expect(await api('get', `${profiles(s.id)}/${created.body.id}`)).toEqual({ status: 200, body: created.body });

    const updated = await api('put', `${profiles(s.id)}/${created.body.id}`, { pageSize: 5000, filePath: null });
    expect(updated).toMatchObject({
      status: 200,
      body: { name: 'Full import', runType: 'FullImport', pageSize: 5000, filePath: null, lastUpdated: expect.stringMatching(ISO) },
    });
    expect((await lastActivity(s.id)).details).toEqual({
      changes: { pageSize: { from: 1000, to: 5000 }, filePath: { from: 'hr/override.csv', to: null } },
    });
    expect((await api('put', `${profiles(s.id)}/${created.body.id}`, { name: 'Renamed' })).body.name).toBe('Renamed');

    const removed = await api('delete', `${profiles(s.id)}/${created.body.id}`);
    expect(removed.status).toBe(204);
    expect(await lastActivity(s.id)).toMatchObject({ target_operation_type: 'Delete', target_name: 'Renamed', target_context: s.name });
    expect((await api('get', `${profiles(s.id)}/${created.body.id}`)).status).toBe(404);
    expect((await api('delete', `${profiles(s.id)}/${created.body.id}`)).status).toBe(404);
  });

  it('takes the default page size from the Sync.PageSize service setting', async () => {
    const s = await system();
    await h.http.put('/api/v1/service-settings/Sync.PageSize').set('X-Api-Key', h.adminKey).send({ value: 321 }).expect(200);
    try {
      expect((await api('post', profiles(s.id), { name: 'Import', runType: 'FullImport' })).body.pageSize).toBe(321);
    } finally {
      await h.http.delete('/api/v1/service-settings/Sync.PageSize').set('X-Api-Key', h.adminKey).expect(200);
    }
    expect((await api('post', profiles(s.id), { name: 'Import 2', runType: 'FullImport' })).body.pageSize).toBe(1000);
  });

  it('validates name, runType, pageSize and filePath, naming the field', async () => {
    const s = await system();
    const url = profiles(s.id);
    expectValidation(await api('post', url, { runType: 'FullImport' }), 'name');
    expectValidation(await api('post', url, { name: '  ', runType: 'FullImport' }), 'name');
    expectValidation(await api('post', url, { name: 'x'.repeat(201), runType: 'FullImport' }), 'name');
    expectValidation(await api('post', url, { name: 'No type' }), 'runType');
    expectValidation(
      await api('post', url, { name: 'Bad type', runType: 'Teleport' }),
      'runType',
      /FullImport, DeltaImport, FullSynchronisation, DeltaSynchronisation, Export/,
    );
    for (const pageSize of [0, 10001, 1.5, '100'])
      expectValidation(await api('post', url, { name: 'Page', runType: 'FullImport', pageSize }), 'pageSize');
    expect((await api('post', url, { name: 'Max page', runType: 'FullImport', pageSize: 10000 })).status).toBe(201);
    expect((await api('post', url, { name: 'Min page', runType: 'FullImport', pageSize: 1 })).status).toBe(201);
    expectValidation(await api('post', url, { name: 'Abs', runType: 'FullImport', filePath: '/etc/passwd' }), 'filePath', /relative/);
    expectValidation(await api('post', url, { name: 'Up', runType: 'FullImport', filePath: 'hr/../../secret.csv' }), 'filePath', /\.\./);
    expectValidation(await api('post', url, { name: 'Drive', runType: 'FullImport', filePath: 'C:\\x.csv' }), 'filePath');
    expectValidation(
      await api('post', url, { name: 'Sync file', runType: 'FullSynchronisation', filePath: 'x.csv' }),
      'filePath',
      /does not read or write files/,
    );
    expectValidation(await api('post', url, { name: 'Extra', runType: 'FullImport', schedule: 'daily' }), 'schedule');
    const sync = (await api('post', url, { name: 'Sync', runType: 'FullSynchronisation' })).body;
    expectValidation(await api('put', `${url}/${sync.id}`, { filePath: 'x.csv' }), 'filePath');
    expectValidation(await api('put', `${url}/${sync.id}`, { pageSize: 0 }), 'pageSize');
    expectValidation(await api('put', `${url}/${sync.id}`, { runType: 'Nope' }), 'runType');
    expectValidation(await api('put', `${url}/abc`, {}), 'runProfileId');
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM connected_system_run_profile WHERE connected_system_id = $1`, [s.id])).rows[0].n,
    ).toBe(3);
  });

  it('reports one message per bad field, reads runType ignoring case and trims name and filePath', async () => {
    const url = profiles((await system()).id);
    const typed = await api('post', url, { name: 5, runType: 'Teleport', pageSize: null, filePath: 7 });
    expect(typed.body.validationErrors).toMatchObject({
      name: ['name is required and must be 1-200 characters.'],
      runType: ['runType is required and must be one of FullImport, DeltaImport, FullSynchronisation, DeltaSynchronisation, Export.'],
      filePath: ['filePath must be text.'],
    });
    expect(typed.body.validationErrors.pageSize).toContain('pageSize must be a whole number.');
    const anyCase = await api('post', url, { name: ' Any case ', runType: 'fullimport', filePath: ' hr/x.csv ' });
    expect(anyCase.body).toMatchObject({ name: 'Any case', runType: 'FullImport', filePath: 'hr/x.csv' });
    expect((await api('put', `${url}/${anyCase.body.id}`, { filePath: null })).body.filePath).toBeNull();
  });

  it('refuses a name already used in the same system (409), but not in another', async () => {
    const a = await system();
    const b = await system();
    await api('post', profiles(a.id), { name: 'Full import', runType: 'FullImport' });
    const dup = await api('post', profiles(a.id), { name: 'FULL IMPORT', runType: 'FullSynchronisation' });
    expect({ status: dup.status, code: dup.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
    expect((await api('post', profiles(b.id), { name: 'Full import', runType: 'FullImport' })).status).toBe(201);
    const other = (await api('post', profiles(a.id), { name: 'Other', runType: 'FullImport' })).body;
    expect((await api('put', `${profiles(a.id)}/${other.id}`, { name: 'full Import' })).status).toBe(409);
  });

  it("refuses run types the connector cannot do with the system's settings (400 naming runType)", async () => {
    const importOnly = await system('Import');
    const refusedExport = await api('post', profiles(importOnly.id), { name: 'Export', runType: 'Export' });
    expectValidation(refusedExport, 'runType', /cannot run Export .*mode Import/);
    expectValidation(
      await api('post', profiles(importOnly.id), { name: 'Delta', runType: 'DeltaImport' }),
      'runType',
      /cannot run DeltaImport/,
    );
    for (const runType of ['FullImport', 'FullSynchronisation', 'DeltaSynchronisation']) {
      expect((await api('post', profiles(importOnly.id), { name: runType, runType })).status).toBe(201);
    }
    const exportOnly = await system('Export');
    expectValidation(
      await api('post', profiles(exportOnly.id), { name: 'Import', runType: 'FullImport' }),
      'runType',
      /cannot run FullImport/,
    );
    const exp = (await api('post', profiles(exportOnly.id), { name: 'Export', runType: 'Export', filePath: 'out/people.csv' })).body;
    expect(exp).toMatchObject({ runType: 'Export', filePath: 'out/people.csv' });
    expectValidation(await api('put', `${profiles(exportOnly.id)}/${exp.id}`, { runType: 'FullImport' }), 'runType');

    // Settings that would strand an existing run profile are refused; Bidirectional keeps both.
    const change = await api('put', `${BASE}/${exportOnly.id}`, { settings: { mode: 'Import' } });
    expectValidation(change, 'settings', /"Export" \(Export\)/);
    expect((await api('put', `${BASE}/${exportOnly.id}`, { settings: { mode: 'Bidirectional' } })).status).toBe(200);
    expect((await api('post', profiles(exportOnly.id), { name: 'Import', runType: 'FullImport' })).status).toBe(201);
  });

  it("execute: 202 with an InProgress activity carrying the run's fields, and a job on the queue", async () => {
    const s = await system();
    const profile = (await api('post', profiles(s.id), { name: 'Nightly import', runType: 'FullImport', pageSize: 500 })).body;
    const res = await api('post', `${profiles(s.id)}/${profile.id}/execute`);
    expect(res).toEqual({ status: 202, body: { activityId: expect.stringMatching(UUID) } });

    const activity = (await api('get', `/api/v1/activities/${res.body.activityId}`)).body;
    expect(activity).toMatchObject({
      status: 'InProgress',
      targetType: 'ConnectedSystemRunProfile',
      targetOperationType: 'Execute',
      targetName: 'Nightly import',
      targetContext: s.name,
      connectedSystemId: s.id,
      connectedSystemRunProfileId: profile.id,
      connectedSystemRunType: 'FullImport',
      initiatedByType: 'ApiKey',
      initiatedByName: 'Bootstrap administrator key',
      objectsToProcess: 0,
      objectsProcessed: 0,
      executed: null,
    });

    const queue = new Queue(RUNS_QUEUE, { connection: { url: h.env.env.REDIS_URL }, prefix: h.env.redisPrefix });
    try {
      const job = await queue.getJob(`run-profile-${res.body.activityId}`);
      expect(job?.name).toBe('run-profile');
      expect(job?.data).toEqual({ activityId: res.body.activityId });
    } finally {
      await queue.close();
    }

    // A profile with a run in progress cannot be deleted.
    const busy = await api('delete', `${profiles(s.id)}/${profile.id}`);
    expect({ status: busy.status, code: busy.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
    // Each execution is its own activity.
    const second = await api('post', `${profiles(s.id)}/${profile.id}/execute`);
    expect(second.status).toBe(202);
    expect(second.body.activityId).not.toBe(res.body.activityId);
  });

  it('execute: 503 when the queue cannot take the job, the activity failed rather than left InProgress', async () => {
    const s = await system();
    const profile = (await api('post', profiles(s.id), { name: 'Queue down', runType: 'FullImport' })).body;
    const enqueue = jest.spyOn(h.app.get(JobQueue), 'enqueue').mockRejectedValueOnce(new Error('Redis is unreachable'));
    try {
      const res = await api('post', `${profiles(s.id)}/${profile.id}/execute`);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(res.body.message).toBe('The job queue (Redis) is unavailable; the run was not started. Try again later.');
      const activity = await lastActivity(s.id);
      expect(activity).toMatchObject({
        target_operation_type: 'Execute',
        status: 'FailedWithError',
        error_message: 'The run could not be queued: Redis is unreachable',
      });
      expect(activity.completed).not.toBeNull();
    } finally {
      enqueue.mockRestore();
    }
  });

  it('404 for a run profile of another system, or of an unknown system', async () => {
    const a = await system();
    const b = await system();
    const pb = (await api('post', profiles(b.id), { name: 'B import', runType: 'FullImport' })).body;
    for (const [method, suffix, body] of [
      ['get', '', undefined],
      ['put', '', { pageSize: 10 }],
      ['delete', '', undefined],
      ['post', '/execute', undefined],
    ] as const) {
      const res = await api(method, `${profiles(a.id)}/${pb.id}${suffix}`, body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
    expect((await api('get', profiles(999999))).status).toBe(404);
    expect((await api('post', `${profiles(999999)}/${pb.id}/execute`)).status).toBe(404);
    expect((await api('get', `${profiles(b.id)}/${pb.id}`)).body.pageSize).toBe(1000);
  });
});
