import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { expectErrorBody } from '@meridian/testing';
import { startWebApp, WebHarness } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE = '/api/v1/service-settings';

interface Res {
  status: number;
  body: any;
  headers: Record<string, string>;
}

const KNOWN = [
  'Sync.PageSize',
  'History.RetentionPeriod',
  'History.CleanupBatchSize',
  'ChangeTracking.CsoChanges.Enabled',
  'ChangeTracking.MvoChanges.Enabled',
  'Maintenance.IsEnabled',
  'Security.RateLimiting.AuthenticatedRequestsPerMinute',
  'Security.RateLimiting.ApiKeyRequestsPerMinute',
  'Security.RateLimiting.UnauthenticatedRequestsPerMinute',
  'Export.MaxRetries',
  'Worker.StaleTaskTimeout',
  'Logging.MinimumLevel',
  'Logging.Directory',
  'Sso.Authority',
];

describe('service settings (/api/v1/service-settings)', () => {
  let h: WebHarness;
  let db: Client;
  /** A second Administrator key, so activities can be told apart from the bootstrap key's. */
  let operator: { id: string; key: string; name: string };

  const get = (key: string, apiKey = operator.key) => h.http.get(`${BASE}/${key}`).set('X-Api-Key', apiKey);
  const put = (key: string, body: unknown, apiKey = operator.key) =>
    h.http
      .put(`${BASE}/${key}`)
      .set('X-Api-Key', apiKey)
      .send(body as object);
  const revert = (key: string, apiKey = operator.key) => h.http.delete(`${BASE}/${key}`).set('X-Api-Key', apiKey);
  const stored = async (key: string) => (await db.query('SELECT * FROM service_setting WHERE key = $1', [key])).rows[0];
  const settingActivities = async () =>
    Number((await db.query(`SELECT count(*) FROM activity WHERE target_type = 'ServiceSetting'`)).rows[0].count);

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    operator = (
      await h.http
        .post('/api/v1/apikeys')
        .set('X-Api-Key', h.adminKey)
        .send({ name: 'Settings operator', roles: ['Administrator'] })
        .expect(201)
    ).body;
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('read', () => {
    it('lists every setting with its type, default, value and bounds', async () => {
      const res = await h.http.get(BASE).set('X-Api-Key', operator.key).expect(200);
      expect(res.body.map((s: { key: string }) => s.key).sort()).toEqual([...KNOWN].sort());
      for (const s of res.body) {
        expect(Object.keys(s).sort()).toEqual(
          [
            'allowedValues',
            'category',
            'defaultValue',
            'description',
            'effectiveValue',
            'isDefault',
            'isReadOnly',
            'key',
            'lastUpdated',
            'lastUpdatedBy',
            'maximum',
            'minimum',
            'value',
            'valueType',
          ].sort(),
        );
        expect(['String', 'Boolean', 'Integer', 'TimeSpan', 'Enum']).toContain(s.valueType);
        expect(s.description.length).toBeGreaterThan(10);
      }
      const pageSize = res.body.find((s: { key: string }) => s.key === 'Sync.PageSize');
      expect(pageSize).toEqual({
        key: 'Sync.PageSize',
        category: 'Sync',
        description: expect.any(String),
        valueType: 'Integer',
        defaultValue: 1000,
        value: null,
        effectiveValue: 1000,
        isReadOnly: false,
        isDefault: true,
        allowedValues: null,
        minimum: 1,
        maximum: 10000,
        lastUpdated: null,
        lastUpdatedBy: null,
      });
      // The harness raised this one through the API with the bootstrap key.
      expect(res.body.find((s: { key: string }) => s.key === 'Security.RateLimiting.AuthenticatedRequestsPerMinute')).toMatchObject({
        value: 1_000_000,
        effectiveValue: 1_000_000,
        isDefault: false,
        lastUpdatedBy: 'Bootstrap administrator key',
        lastUpdated: expect.stringMatching(ISO),
      });
      expect(res.body.find((s: { key: string }) => s.key === 'Security.RateLimiting.ApiKeyRequestsPerMinute')).toMatchObject({
        category: 'Security',
        valueType: 'Integer',
        defaultValue: 6000,
        minimum: 1,
        maximum: 1_000_000,
        effectiveValue: 6000,
        isDefault: true,
      });
      expect(res.body.find((s: { key: string }) => s.key === 'Logging.MinimumLevel')).toMatchObject({
        valueType: 'Enum',
        allowedValues: ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'],
        defaultValue: 'Information',
      });
    });

    it('reports read-only settings from the environment', async () => {
      const dir = (await get('Logging.Directory').expect(200)).body;
      expect(dir).toMatchObject({ isReadOnly: true, valueType: 'String', effectiveValue: h.env.logDir });
      const sso = (await get('Sso.Authority').expect(200)).body;
      expect(sso).toMatchObject({ isReadOnly: true, effectiveValue: '' });
    });

    it('finds a setting by key, case-insensitively, and answers 404 for an unknown key', async () => {
      expect((await get('sync.PAGESIZE').expect(200)).body.key).toBe('Sync.PageSize');
      for (const res of [
        await get('Sync.PageSizes'),
        await get('nope'),
        await put('Nope.Nothing', { value: 1 }),
        await revert('Nope.Nothing'),
      ]) {
        expectErrorBody(res, 404, 'NOT_FOUND');
        expect(res.body.message).toMatch(/does not exist/);
      }
    });
  });

  describe('write', () => {
    afterEach(async () => {
      // Revert (through the API) whatever a test changed, except the harness's rate limits.
      const { rows } = await db.query(`SELECT key FROM service_setting WHERE key NOT LIKE 'Security.RateLimiting.%'`);
      for (const { key } of rows) await revert(key).expect(200);
    });

    it('sets an Integer setting, stores it and reads it back', async () => {
      const res = await put('Sync.PageSize', { value: 500 }).expect(200);
      expect(res.body).toMatchObject({
        key: 'Sync.PageSize',
        value: 500,
        effectiveValue: 500,
        defaultValue: 1000,
        isDefault: false,
        lastUpdatedBy: 'Settings operator',
      });
      expect(res.body.lastUpdated).toMatch(ISO);
      expect((await get('Sync.PageSize')).body).toEqual(res.body);
      expect(await stored('Sync.PageSize')).toMatchObject({ value: '500', last_updated_by: 'Settings operator' });
    });

    it('writes under the canonical key whatever the case of the path', async () => {
      await put('sync.pagesize', { value: 640 }).expect(200);
      expect(await stored('Sync.PageSize')).toMatchObject({ value: '640' });
      expect((await db.query(`SELECT count(*) FROM service_setting WHERE lower(key) = 'sync.pagesize'`)).rows[0].count).toBe('1');
      expect((await revert('SYNC.PAGESIZE').expect(200)).body.isDefault).toBe(true);
      expect(await stored('Sync.PageSize')).toBeUndefined();
    });

    it('DELETE reverts to the default and removes the stored value', async () => {
      await put('Sync.PageSize', { value: 250 }).expect(200);
      const res = await revert('Sync.PageSize').expect(200);
      expect(res.body).toMatchObject({ value: null, effectiveValue: 1000, isDefault: true, lastUpdated: null, lastUpdatedBy: null });
      expect(await stored('Sync.PageSize')).toBeUndefined();
      // Reverting a setting that has no value is harmless.
      expect((await revert('Sync.PageSize').expect(200)).body.effectiveValue).toBe(1000);
    });

    it.each<[string, unknown, unknown]>([
      ['Sync.PageSize', 1, 1],
      ['Sync.PageSize', 10000, 10000],
      ['Export.MaxRetries', 0, 0],
      ['ChangeTracking.CsoChanges.Enabled', false, false],
      ['History.RetentionPeriod', '30.00:00:00', '30.00:00:00'],
      ['History.RetentionPeriod', '1.00:00:00', '1.00:00:00'],
      ['History.RetentionPeriod', '3650.00:00:00', '3650.00:00:00'],
      ['Worker.StaleTaskTimeout', '00:00:30', '00:00:30'],
      ['Worker.StaleTaskTimeout', '0.00:10:00', '00:10:00'],
      ['Worker.StaleTaskTimeout', '1.00:00:00', '1.00:00:00'],
      ['Logging.MinimumLevel', 'warning', 'Warning'],
      ['Logging.MinimumLevel', 'Fatal', 'Fatal'],
    ])('accepts %s = %p and stores it as %p', async (key, value, canonical) => {
      const res = await put(key, { value }).expect(200);
      expect(res.body).toMatchObject({ value: canonical, effectiveValue: canonical, isDefault: false });
      expect(JSON.parse((await stored(res.body.key)).value)).toEqual(canonical);
    });

    it.each<[string, unknown]>([
      ['Sync.PageSize', '500'],
      ['Sync.PageSize', 1.5],
      ['Sync.PageSize', 0],
      ['Sync.PageSize', 10001],
      ['Sync.PageSize', -1],
      ['Sync.PageSize', true],
      ['Sync.PageSize', null],
      ['Sync.PageSize', [500]],
      ['Sync.PageSize', { n: 500 }],
      ['Export.MaxRetries', -1],
      ['Export.MaxRetries', 101],
      ['ChangeTracking.CsoChanges.Enabled', 'true'],
      ['ChangeTracking.CsoChanges.Enabled', 1],
      ['History.RetentionPeriod', '12:00:00'],
      ['History.RetentionPeriod', '3651.00:00:00'],
      ['History.RetentionPeriod', 'P30D'],
      ['History.RetentionPeriod', 30],
      ['Worker.StaleTaskTimeout', '00:00:29'],
      ['Worker.StaleTaskTimeout', '1.00:00:01'],
      ['Worker.StaleTaskTimeout', '25:00:00'],
      ['Worker.StaleTaskTimeout', '00:60:00'],
      ['Logging.MinimumLevel', 'Loud'],
      ['Logging.MinimumLevel', 3],
    ])('refuses %s = %p with 400 VALIDATION_ERROR on value, stores nothing and records nothing', async (key, value) => {
      const activities = await settingActivities();
      const res = await put(key, { value });
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(res.body.validationErrors.value.join(' ')).toContain(key);
      expect(await stored(key)).toBeUndefined();
      expect(await settingActivities()).toBe(activities);
    });

    it('requires a value and refuses unknown fields', async () => {
      const missing = await put('Sync.PageSize', {});
      expectErrorBody(missing, 400, 'VALIDATION_ERROR');
      expect(missing.body.validationErrors.value[0]).toMatch(/value is required/);
      const extra = await put('Sync.PageSize', { value: 10, note: 'why' });
      expectErrorBody(extra, 400, 'VALIDATION_ERROR');
      expect(extra.body.validationErrors).toEqual({ note: ['note is not a known field'] });
      expect(await stored('Sync.PageSize')).toBeUndefined();
    });

    it('refuses writes to read-only settings with 400 BAD_REQUEST', async () => {
      const activities = await settingActivities();
      for (const res of [
        await put('Logging.Directory', { value: '/tmp/elsewhere' }),
        await revert('Logging.Directory'),
        await put('Sso.Authority', { value: 'https://idp.example.org' }),
      ]) {
        expectErrorBody(res, 400, 'BAD_REQUEST');
        expect(res.body.message).toMatch(/read-only/);
      }
      expect(await stored('Logging.Directory')).toBeUndefined();
      expect((await get('Logging.Directory')).body.effectiveValue).toBe(h.env.logDir);
      expect(await settingActivities()).toBe(activities);
    });
  });

  describe('activities', () => {
    it('records every change and revert with the initiator, the old and the new value', async () => {
      await put('History.CleanupBatchSize', { value: 700 }).expect(200);
      await put('History.CleanupBatchSize', { value: 900 }).expect(200);
      await revert('History.CleanupBatchSize').expect(200);
      const list = await h.http
        .get('/api/v1/activities')
        .query({ search: 'History.CleanupBatchSize', sortBy: 'created', sortDirection: 'asc', pageSize: 100 })
        .set('X-Api-Key', operator.key)
        .expect(200);
      expect(list.body.totalCount).toBe(3);
      expect(list.body.items.map((a: { targetOperationType: string }) => a.targetOperationType)).toEqual(['Update', 'Update', 'Revert']);
      for (const a of list.body.items) {
        expect(a).toMatchObject({
          targetType: 'ServiceSetting',
          targetName: 'History.CleanupBatchSize',
          status: 'Complete',
          initiatedByType: 'ApiKey',
          initiatedById: operator.id,
          initiatedByName: 'Settings operator',
        });
      }
      const details = await Promise.all(
        list.body.items.map((a: { id: string }) =>
          h.http
            .get(`/api/v1/activities/${a.id}`)
            .set('X-Api-Key', operator.key)
            .expect(200)
            .then((r) => r.body),
        ),
      );
      expect(details.map((d) => d.details)).toEqual([
        { previousValue: 1000, value: 700 },
        { previousValue: 700, value: 900 },
        { previousValue: 900, value: 1000 },
      ]);
      expect(details[0].message).toBe('History.CleanupBatchSize set to 700.');
      expect(details.every((d) => d.targetId === 'History.CleanupBatchSize')).toBe(true);
    });
  });

  describe('access', () => {
    it('needs credentials (401) and the Administrator role (403); a refused write changes nothing', async () => {
      const reader = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'no roles' }).expect(201)).body;
      expectErrorBody(await h.http.get(BASE), 401, 'UNAUTHORISED');
      expectErrorBody(await h.http.put(`${BASE}/Sync.PageSize`).send({ value: 5 }), 401, 'UNAUTHORISED');
      expectErrorBody(await h.http.get(BASE).set('X-Api-Key', reader.key), 403, 'FORBIDDEN');
      expectErrorBody(await get('Sync.PageSize', reader.key), 403, 'FORBIDDEN');
      expectErrorBody(await put('Sync.PageSize', { value: 5 }, reader.key), 403, 'FORBIDDEN');
      expectErrorBody(await revert('Security.RateLimiting.AuthenticatedRequestsPerMinute', reader.key), 403, 'FORBIDDEN');
      expect(await stored('Sync.PageSize')).toBeUndefined();
      expect(await stored('Security.RateLimiting.AuthenticatedRequestsPerMinute')).toBeDefined();
    });
  });

  describe('Maintenance.IsEnabled', () => {
    it('makes /health/ready answer 503 not_ready with a reason, and ready again when reverted', async () => {
      await h.http.get('/api/v1/health/ready').expect(200);
      await put('Maintenance.IsEnabled', { value: true }).expect(200);
      try {
        const res = await h.http.get('/api/v1/health/ready');
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({
          status: 'not_ready',
          reasons: ['maintenance mode is on'],
          checks: { maintenance: 'failed', database: 'ok' },
        });
        expect(res.body.timestamp).toMatch(ISO);
        // Liveness and health do not depend on maintenance mode; the API keeps working.
        await h.http.get('/api/v1/health/live').expect(200);
        await h.http.get('/api/v1/health').expect(200);
        await get('Maintenance.IsEnabled').expect(200);
      } finally {
        await revert('Maintenance.IsEnabled').expect(200);
      }
      const ready = await h.http.get('/api/v1/health/ready').expect(200);
      expect(ready.body).toMatchObject({ status: 'ready', checks: { maintenance: 'ok' } });
    });

    it('is also lifted by setting it to false', async () => {
      await put('Maintenance.IsEnabled', { value: true }).expect(200);
      await h.http.get('/api/v1/health/ready').expect(503);
      await put('Maintenance.IsEnabled', { value: false }).expect(200);
      await h.http.get('/api/v1/health/ready').expect(200);
      await revert('Maintenance.IsEnabled').expect(200);
    });
  });

  describe('Security.RateLimiting.*', () => {
    const AUTH = 'Security.RateLimiting.AuthenticatedRequestsPerMinute';
    const API_KEY = 'Security.RateLimiting.ApiKeyRequestsPerMinute';
    const ANON = 'Security.RateLimiting.UnauthenticatedRequestsPerMinute';
    const newKey = async (name: string, roles: string[] = []) =>
      (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name, roles }).expect(201)).body as { key: string };

    function expectRateLimited(res: Res, limit: number): void {
      expectErrorBody(res, 429, 'RATE_LIMITED');
      expect(res.body.message).toContain(`${limit} per minute`);
      const retryAfter = Number(res.headers['retry-after']);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }

    /** Sends until refused (at most `max` calls) and returns the responses. */
    async function until429(send: () => Promise<Res>, max: number): Promise<Res[]> {
      const out: Res[] = [];
      while (out.length < max) {
        const res = await send();
        out.push(res);
        if (res.status === 429) break;
      }
      return out;
    }

    it('counts per API key at the API key limit, above the authenticated one: the 4th call of a key within a minute gets 429 with Retry-After and X-RateLimit-* headers; other keys are unaffected', async () => {
      const restorer = await newKey('restorer', ['Administrator']);
      const counted = await newKey('counted');
      const other = await newKey('other');
      await h.http.get('/api/v1/userinfo').set('X-Api-Key', restorer.key).expect(200);
      await put(AUTH, { value: 1 }, h.adminKey).expect(200);
      await put(API_KEY, { value: 3 }, h.adminKey).expect(200);
      try {
        const statuses: Array<[number, string]> = [];
        for (let i = 0; i < 3; i++) {
          const res = await h.http.get('/api/v1/userinfo').set('X-Api-Key', counted.key);
          statuses.push([res.status, res.headers['x-ratelimit-remaining']]);
          expect(res.headers['x-ratelimit-limit']).toBe('3');
        }
        expect(statuses).toEqual([
          [200, '2'],
          [200, '1'],
          [200, '0'],
        ]);
        expectRateLimited(await h.http.get('/api/v1/userinfo').set('X-Api-Key', counted.key), 3);
        expectRateLimited(await h.http.get('/api/v1/userinfo').set('X-Api-Key', counted.key), 3);
        // Another credential has its own window.
        const fresh = await h.http.get('/api/v1/userinfo').set('X-Api-Key', other.key).expect(200);
        expect(fresh.headers['x-ratelimit-remaining']).toBe('2');
        // Health probes are exempt.
        for (let i = 0; i < 5; i++) await h.http.get('/api/v1/health/ready').set('X-Api-Key', counted.key).expect(200);
      } finally {
        await put(API_KEY, { value: 1_000_000 }, restorer.key).expect(200);
        await put(AUTH, { value: 1_000_000 }, restorer.key).expect(200);
      }
      await h.http.get('/api/v1/userinfo').set('X-Api-Key', counted.key).expect(200);
    });

    it('counts anonymous callers per address at the unauthenticated limit; health is exempt', async () => {
      const restorer = await newKey('anon restorer', ['Administrator']);
      await h.http.get('/api/v1/userinfo').set('X-Api-Key', restorer.key).expect(200);
      await put(ANON, { value: 3 }, h.adminKey).expect(200);
      try {
        // Earlier anonymous calls of this suite may already count in this minute's window.
        const responses = await until429(() => h.http.get('/api/v1/userinfo'), 5);
        const last = responses[responses.length - 1];
        expectRateLimited(last, 3);
        expect(responses.slice(0, -1).every((r) => r.status === 401)).toBe(true);
        for (let i = 0; i < 5; i++) await h.http.get('/api/v1/health').expect(200);
        // A caller with credentials is counted separately.
        await h.http.get('/api/v1/userinfo').set('X-Api-Key', restorer.key).expect(200);
      } finally {
        await put(ANON, { value: 1_000_000 }, restorer.key).expect(200);
      }
      await h.http.get('/api/v1/userinfo').expect(401);
    });

    it('counts invalid credentials against the address, so a made-up key per request does not escape the limit', async () => {
      const restorer = await newKey('guessing restorer', ['Administrator']);
      await h.http.get('/api/v1/userinfo').set('X-Api-Key', restorer.key).expect(200);
      await put(ANON, { value: 3 }, h.adminKey).expect(200);
      try {
        const responses = await until429(
          () => h.http.get('/api/v1/userinfo').set('X-Api-Key', `mer_${randomBytes(32).toString('base64url')}`),
          5,
        );
        expectRateLimited(responses[responses.length - 1], 3);
        expect(responses.slice(0, -1).every((r) => r.status === 401)).toBe(true);
        // A credential already known to be good keeps its own window.
        await h.http.get('/api/v1/userinfo').set('X-Api-Key', restorer.key).expect(200);
      } finally {
        await put(ANON, { value: 1_000_000 }, restorer.key).expect(200);
      }
    });
  });
});
