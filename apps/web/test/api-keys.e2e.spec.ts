import { INestApplication } from '@nestjs/common';
import { closeLogger, createServiceLogger, loadConfig } from '@meridian/platform';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { createWebApp } from '../src/bootstrap';
import { expectErrorBody } from '@meridian/testing';
import { checkResponsesAgainstDocument, startWebApp, WebHarness } from './harness';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const SECRET = /^mer_[A-Za-z0-9_-]{43}$/; // 32 random bytes, base64url
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('API keys (/api/v1/apikeys)', () => {
  let h: WebHarness;
  let db: Client;
  const admin = () => h.adminKey;

  const create = async (body: Record<string, unknown>, key = admin()) => h.http.post('/api/v1/apikeys').set('X-Api-Key', key).send(body);
  const userinfo = (key: string) => h.http.get('/api/v1/userinfo').set('X-Api-Key', key);
  const row = async (id: string) => (await db.query('SELECT * FROM api_key WHERE id = $1', [id])).rows[0];
  const keyCount = async () => Number((await db.query('SELECT count(*) FROM api_key')).rows[0].count);

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('create and read', () => {
    it('returns the secret once, as key, with the mer_ prefix; GET and list never return it', async () => {
      const res = await create({ name: 'CI pipeline', description: 'Deploys', roles: ['Administrator'] });
      expect(res.status).toBe(201);
      const { key, ...view } = res.body;
      expect(key).toMatch(SECRET);
      expect(view).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'CI pipeline',
        description: 'Deploys',
        keyPrefix: key.slice(0, 12),
        roles: ['Administrator'],
        expiresAt: null,
        isExpired: false,
        isEnabled: true,
        isBootstrap: false,
        created: expect.stringMatching(ISO),
        createdByName: 'Bootstrap administrator key',
        lastUpdated: null,
        lastUsedAt: null,
      });

      const got = await h.http.get(`/api/v1/apikeys/${view.id}`).set('X-Api-Key', admin()).expect(200);
      expect(got.body).toEqual(view);
      expect(JSON.stringify(got.body)).not.toContain(key);

      const list = await h.http.get('/api/v1/apikeys').set('X-Api-Key', admin()).expect(200);
      expect(list.body).toEqual(expect.arrayContaining([view]));
      for (const item of list.body) {
        expect(item).not.toHaveProperty('key');
        expect(item).not.toHaveProperty('keyHash');
      }
      expect(JSON.stringify(list.body)).not.toContain(key);
    });

    it('stores only the SHA-256 of the secret, never the secret itself', async () => {
      const res = await create({ name: 'hash check' }).then((r) => r.body);
      const stored = await row(res.id);
      expect(stored.key_hash).toBe(sha256(res.key));
      expect(stored.key_prefix).toBe(res.key.slice(0, 12));
      const everything = JSON.stringify((await db.query('SELECT row_to_json(k) AS j FROM api_key k')).rows);
      expect(everything).not.toContain(res.key);
      const activities = JSON.stringify((await db.query('SELECT row_to_json(a) AS j FROM activity a')).rows);
      expect(activities).not.toContain(res.key);
      expect(activities).not.toContain(stored.key_hash);
    });

    it('generates a different 256-bit secret for every key', async () => {
      const a = (await create({ name: 'twin' })).body;
      const b = (await create({ name: 'twin' })).body;
      expect(a.key).not.toBe(b.key);
      expect(a.id).not.toBe(b.id);
      expect(Buffer.from(a.key.slice(4), 'base64url')).toHaveLength(32);
    });

    it('lists keys oldest first, starting with the bootstrap key', async () => {
      const list = (await h.http.get('/api/v1/apikeys').set('X-Api-Key', admin()).expect(200)).body;
      const created = list.map((k: { created: string }) => Date.parse(k.created));
      expect(created).toEqual([...created].sort((x, y) => x - y));
      expect(list[0]).toMatchObject({ isBootstrap: true, name: 'Bootstrap administrator key', roles: ['Administrator'] });
      expect(list).toHaveLength(await keyCount());
    });

    it('accepts the boundaries (name 200, description 1000 characters), trims the name and canonicalises role names', async () => {
      const res = await create({ name: 'n'.repeat(200), description: 'd'.repeat(1000), roles: ['administrator', 'ADMINISTRATOR'] });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('n'.repeat(200));
      expect(res.body.description).toHaveLength(1000);
      expect(res.body.roles).toEqual(['Administrator']);
      expect((await create({ name: '  padded  ' })).body.name).toBe('padded');
    });

    it('accepts a future expiry and reports it', async () => {
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const res = await create({ name: 'expiring', expiresAt });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ expiresAt, isExpired: false });
      await userinfo(res.body.key).expect(200);
    });

    it('creates a disabled key when asked, and it cannot authenticate', async () => {
      const res = await create({ name: 'born disabled', isEnabled: false });
      expect(res.status).toBe(201);
      expect(res.body.isEnabled).toBe(false);
      expectErrorBody(await userinfo(res.body.key), 401, 'UNAUTHORISED');
    });
  });

  describe('create validation', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['missing name', {}, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['blank name', { name: '   ' }, 'name'],
      ['name over 200 characters', { name: 'n'.repeat(201) }, 'name'],
      ['name not a string', { name: 42 }, 'name'],
      ['description over 1000 characters', { name: 'x', description: 'd'.repeat(1001) }, 'description'],
      ['description not a string', { name: 'x', description: 5 }, 'description'],
      ['roles not an array', { name: 'x', roles: 'Administrator' }, 'roles'],
      ['roles with a non-string', { name: 'x', roles: [5] }, 'roles'],
      ['unknown role', { name: 'x', roles: ['Superuser'] }, 'roles'],
      ['expiresAt not a date', { name: 'x', expiresAt: 'tomorrow' }, 'expiresAt'],
      ['expiresAt a number', { name: 'x', expiresAt: 1893456000 }, 'expiresAt'],
      ['expiresAt impossible date', { name: 'x', expiresAt: '2099-02-30T00:00:00Z' }, 'expiresAt'],
      ['expiresAt in the past', { name: 'x', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      ['isEnabled a string', { name: 'x', isEnabled: 'true' }, 'isEnabled'],
      ['isEnabled null', { name: 'x', isEnabled: null }, 'isEnabled'],
      ['a secret supplied by the caller', { name: 'x', key: 'mer_chosen-by-me' }, 'key'],
      ['a hash supplied by the caller', { name: 'x', keyHash: sha256('x') }, 'keyHash'],
      ['a bootstrap flag', { name: 'x', isBootstrap: true }, 'isBootstrap'],
    ];

    it.each(cases)('refuses %s with 400 VALIDATION_ERROR naming the field, and creates nothing', async (_label, body, field) => {
      const before = await keyCount();
      const res = await create(body);
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(Object.keys(res.body.validationErrors)).toContain(field);
      expect(await keyCount()).toBe(before);
    });

    it('refuses a body that is not an object', async () => {
      expectErrorBody(
        await h.http
          .post('/api/v1/apikeys')
          .set('X-Api-Key', admin())
          .send([{ name: 'x' }]),
        400,
        'VALIDATION_ERROR',
      );
    });
  });

  describe('use', () => {
    it('authenticates with the new secret; an Administrator key reaches admin endpoints', async () => {
      const k = (await create({ name: 'automation', roles: ['Administrator'] })).body;
      const me = await userinfo(k.key).expect(200);
      expect(me.body).toEqual({
        authorised: true,
        isAdministrator: true,
        name: 'automation',
        authMethod: 'api_key',
        metaverseObjectId: null,
        roles: ['Administrator'],
        message: null,
      });
      await h.http.get('/api/v1/apikeys').set('X-Api-Key', k.key).expect(200);
    });

    it('a key with no roles is authenticated but not an administrator: userinfo works, admin endpoints 403', async () => {
      const k = (await create({ name: 'reader' })).body;
      expect(k.roles).toEqual([]);
      const me = await userinfo(k.key).expect(200);
      expect(me.body).toMatchObject({ authorised: true, isAdministrator: false, name: 'reader', authMethod: 'api_key', roles: [] });
      const before = await keyCount();
      for (const res of [
        await h.http.get('/api/v1/apikeys').set('X-Api-Key', k.key),
        await h.http.get(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', k.key),
        await create({ name: 'escalation', roles: ['Administrator'] }, k.key),
        await h.http
          .put(`/api/v1/apikeys/${k.id}`)
          .set('X-Api-Key', k.key)
          .send({ roles: ['Administrator'] }),
        await h.http.delete(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', k.key),
        await h.http.get('/api/v1/activities').set('X-Api-Key', k.key),
      ]) {
        expectErrorBody(res, 403, 'FORBIDDEN');
        expect(res.body.message).toMatch(/Administrator/);
      }
      expect(await keyCount()).toBe(before);
      expect((await row(k.id)).roles).toEqual([]);
    });

    it('refuses unknown secrets, the stored hash and the display prefix with 401', async () => {
      const k = (await create({ name: 'guarded' })).body;
      for (const wrong of [`mer_${randomBytes(32).toString('base64url')}`, sha256(k.key), k.keyPrefix, `${k.key}x`, k.key.slice(0, -1)]) {
        const res = await userinfo(wrong);
        expectErrorBody(res, 401, 'UNAUTHORISED');
        expect(res.body.message).toMatch(/not valid/);
      }
      expectErrorBody(await h.http.get('/api/v1/userinfo'), 401, 'UNAUTHORISED');
    });

    it('sets lastUsedAt when the key is used', async () => {
      const k = (await create({ name: 'used' })).body;
      expect((await h.http.get(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin())).body.lastUsedAt).toBeNull();
      const before = Date.now();
      await userinfo(k.key).expect(200);
      const after = Date.now();
      const lastUsedAt = (await h.http.get(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()).expect(200)).body.lastUsedAt;
      expect(lastUsedAt).toMatch(ISO);
      // The database clock stamps it; allow a little skew against ours.
      expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(before - 2000);
      expect(Date.parse(lastUsedAt)).toBeLessThanOrEqual(after + 2000);
      expect((await row(k.id)).last_used_at).not.toBeNull();
    });
  });

  describe('update', () => {
    it('changes name, description, roles, expiry and enablement', async () => {
      const k = (await create({ name: 'before', description: 'old' })).body;
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const res = await h.http
        .put(`/api/v1/apikeys/${k.id}`)
        .set('X-Api-Key', admin())
        .send({ name: 'after', description: 'new', roles: ['Administrator'], expiresAt, isEnabled: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: k.id,
        name: 'after',
        description: 'new',
        roles: ['Administrator'],
        expiresAt,
        isExpired: false,
        isEnabled: true,
        keyPrefix: k.keyPrefix,
      });
      expect(res.body).not.toHaveProperty('key');
      expect(res.body.lastUpdated).toMatch(ISO);
      expect((await h.http.get(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin())).body).toEqual(res.body);
      // The role takes effect: the key is now an administrator.
      await h.http.get('/api/v1/apikeys').set('X-Api-Key', k.key).expect(200);

      const cleared = await h.http
        .put(`/api/v1/apikeys/${k.id}`)
        .set('X-Api-Key', admin())
        .send({ description: null, expiresAt: null, roles: [] });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ name: 'after', description: null, expiresAt: null, roles: [] });
      expectErrorBody(await h.http.get('/api/v1/apikeys').set('X-Api-Key', k.key), 403, 'FORBIDDEN');
      // The secret is unchanged by updates.
      expect((await row(k.id)).key_hash).toBe(sha256(k.key));
    });

    it('only changes the fields it is given', async () => {
      const k = (await create({ name: 'partial', description: 'keep me', roles: ['Administrator'] })).body;
      const res = await h.http.put(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()).send({ name: 'partial renamed' }).expect(200);
      expect(res.body).toMatchObject({
        name: 'partial renamed',
        description: 'keep me',
        roles: ['Administrator'],
        isEnabled: true,
        expiresAt: null,
      });
    });

    it('disabling a key gives 401 with a clear message; enabling it again lets it in', async () => {
      const k = (await create({ name: 'toggle' })).body;
      await userinfo(k.key).expect(200);
      await h.http.put(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()).send({ isEnabled: false }).expect(200);
      const refused = await userinfo(k.key);
      expectErrorBody(refused, 401, 'UNAUTHORISED');
      expect(refused.body.message).toMatch(/disabled/i);
      await h.http.put(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()).send({ isEnabled: true }).expect(200);
      await userinfo(k.key).expect(200);
    });

    it('lets an administrator expire a key immediately (a past expiresAt); the key then gets 401 saying it expired', async () => {
      const k = (await create({ name: 'short-lived', expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).body;
      await userinfo(k.key).expect(200);
      const past = new Date(Date.now() - 60_000).toISOString();
      const res = await h.http.put(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()).send({ expiresAt: past });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ expiresAt: past, isExpired: true });
      const refused = await userinfo(k.key);
      expectErrorBody(refused, 401, 'UNAUTHORISED');
      expect(refused.body.message).toMatch(/expired/i);
      // Removing the expiry brings it back.
      await h.http.put(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()).send({ expiresAt: null }).expect(200);
      await userinfo(k.key).expect(200);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['an empty name', { name: '' }, 'name'],
      ['a null name', { name: null }, 'name'],
      ['a name over 200 characters', { name: 'n'.repeat(201) }, 'name'],
      ['null roles', { roles: null }, 'roles'],
      ['an unknown role', { roles: ['Auditor'] }, 'roles'],
      ['a null isEnabled', { isEnabled: null }, 'isEnabled'],
      ['a string isEnabled', { isEnabled: 'false' }, 'isEnabled'],
      ['a description over 1000 characters', { description: 'd'.repeat(1001) }, 'description'],
      ['a malformed expiresAt', { expiresAt: 'next week' }, 'expiresAt'],
      ['an unknown field', { secret: 'x' }, 'secret'],
    ];

    it.each(invalid)('refuses %s with 400 VALIDATION_ERROR and changes nothing', async (_label, body, field) => {
      const k = (await create({ name: 'unchanged', roles: ['Administrator'] })).body;
      const before = await row(k.id);
      const res = await h.http.put(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()).send(body);
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(Object.keys(res.body.validationErrors)).toContain(field);
      expect(await row(k.id)).toEqual(before);
    });
  });

  describe('delete', () => {
    it('answers 204 with no body; the key is then 404 and its secret gets 401', async () => {
      const k = (await create({ name: 'doomed', roles: ['Administrator'] })).body;
      await userinfo(k.key).expect(200);
      const res = await h.http.delete(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin());
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await row(k.id)).toBeUndefined();
      expectErrorBody(await h.http.get(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()), 404, 'NOT_FOUND');
      const refused = await userinfo(k.key);
      expectErrorBody(refused, 401, 'UNAUTHORISED');
      expect(refused.body.message).toMatch(/not valid/);
      expectErrorBody(await h.http.delete(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', admin()), 404, 'NOT_FOUND');
    });

    it('lets a key delete itself, after which it is refused', async () => {
      const k = (await create({ name: 'self-destruct', roles: ['Administrator'] })).body;
      await h.http.delete(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', k.key).expect(204);
      expectErrorBody(await userinfo(k.key), 401, 'UNAUTHORISED');
    });
  });

  describe('ids', () => {
    it('answers 404 NOT_FOUND for a key that does not exist', async () => {
      const id = randomUUID();
      for (const res of [
        await h.http.get(`/api/v1/apikeys/${id}`).set('X-Api-Key', admin()),
        await h.http.put(`/api/v1/apikeys/${id}`).set('X-Api-Key', admin()).send({ name: 'ghost' }),
        await h.http.delete(`/api/v1/apikeys/${id}`).set('X-Api-Key', admin()),
      ]) {
        expectErrorBody(res, 404, 'NOT_FOUND');
        expect(res.body.message).toContain(id);
      }
    });

    it.each(['abc', '123', `${randomUUID()}x`, randomUUID().replace(/-/g, ''), "' OR 1=1 --"])(
      'answers 400 VALIDATION_ERROR for the id %p',
      async (id) => {
        const path = `/api/v1/apikeys/${encodeURIComponent(id)}`;
        for (const res of [
          await h.http.get(path).set('X-Api-Key', admin()),
          await h.http.put(path).set('X-Api-Key', admin()).send({ name: 'x' }),
          await h.http.delete(path).set('X-Api-Key', admin()),
        ]) {
          expectErrorBody(res, 400, 'VALIDATION_ERROR');
          expect(res.body.validationErrors).toHaveProperty('id');
        }
      },
    );

    it('accepts an upper-case UUID', async () => {
      const k = (await create({ name: 'upper' })).body;
      const res = await h.http.get(`/api/v1/apikeys/${k.id.toUpperCase()}`).set('X-Api-Key', admin()).expect(200);
      expect(res.body.id).toBe(k.id);
    });

    it('checks credentials before ids: 401 without a key, whatever the id', async () => {
      expectErrorBody(await h.http.get('/api/v1/apikeys/abc'), 401, 'UNAUTHORISED');
      expectErrorBody(await h.http.get(`/api/v1/apikeys/${randomUUID()}`), 401, 'UNAUTHORISED');
    });
  });

  describe('activities', () => {
    it('records create, update and delete with the initiating key', async () => {
      const operator = (await create({ name: 'Key operator', roles: ['Administrator'] })).body;
      const name = `audited-${randomBytes(4).toString('hex')}`;
      const k = (await create({ name, roles: ['Administrator'] }, operator.key)).body;
      await h.http
        .put(`/api/v1/apikeys/${k.id}`)
        .set('X-Api-Key', operator.key)
        .send({ description: 'now described', isEnabled: false })
        .expect(200);
      await h.http.delete(`/api/v1/apikeys/${k.id}`).set('X-Api-Key', operator.key).expect(204);

      const list = await h.http
        .get('/api/v1/activities')
        .query({ search: name, sortBy: 'created', sortDirection: 'asc' })
        .set('X-Api-Key', admin())
        .expect(200);
      expect(list.body.totalCount).toBe(3);
      expect(list.body.items.map((a: { targetOperationType: string }) => a.targetOperationType)).toEqual(['Create', 'Update', 'Delete']);
      for (const a of list.body.items) {
        expect(a).toMatchObject({
          targetType: 'ApiKey',
          targetName: name,
          status: 'Complete',
          initiatedByType: 'ApiKey',
          initiatedById: operator.id,
          initiatedByName: 'Key operator',
        });
      }
      const [created, updated] = await Promise.all(
        list.body.items.slice(0, 2).map((a: { id: string }) =>
          h.http
            .get(`/api/v1/activities/${a.id}`)
            .set('X-Api-Key', admin())
            .expect(200)
            .then((r) => r.body),
        ),
      );
      expect(created).toMatchObject({ targetId: k.id, details: { roles: ['Administrator'], isEnabled: true, expiresAt: null } });
      expect(updated.details.changed.sort()).toEqual(['description', 'isEnabled']);
    });

    it('records nothing for a refused change', async () => {
      const count = async () => Number((await db.query(`SELECT count(*) FROM activity WHERE target_type = 'ApiKey'`)).rows[0].count);
      const before = await count();
      await create({ name: '' }).then((r) => expect(r.status).toBe(400));
      await h.http.put(`/api/v1/apikeys/${randomUUID()}`).set('X-Api-Key', admin()).send({ name: 'x' }).expect(404);
      expect(await count()).toBe(before);
    });
  });

  // Last: passport keeps one strategy registry per process, so once a restarted app has started and
  // closed, the first app can no longer check keys. The restart tests therefore talk to the restarted app.
  describe('the bootstrap key (MERIDIAN_BOOTSTRAP_API_KEY)', () => {
    const bootstrapRows = async () => (await db.query('SELECT * FROM api_key WHERE is_bootstrap')).rows;
    let keeper: { id: string; key: string };

    /** Starts a web app on the same database with another MERIDIAN_BOOTSTRAP_API_KEY, as a restart would. */
    async function restart(
      bootstrapKey: string,
    ): Promise<{ app: INestApplication; http: ReturnType<typeof request>; close(): Promise<void> }> {
      const config = loadConfig('web', { ...h.env.env, MERIDIAN_BOOTSTRAP_API_KEY: bootstrapKey });
      const logger = createServiceLogger({ service: 'web', logDir: config.logDir, level: 'Fatal', console: false });
      const app = await createWebApp(config, logger);
      const openApi = await checkResponsesAgainstDocument(app);
      return {
        app,
        http: request(app.getHttpServer()),
        close: async () => {
          await app.close();
          await closeLogger(logger);
          openApi.assertConforms();
        },
      };
    }

    beforeAll(async () => {
      keeper = (await create({ name: 'keeper', roles: ['Administrator'] })).body;
    });

    it('exists as one enabled Administrator key whose hash is that of the variable', async () => {
      const rows = await bootstrapRows();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ key_hash: sha256(h.adminKey), roles: ['Administrator'], is_enabled: true, expires_at: null });
      const me = await userinfo(h.adminKey).expect(200);
      expect(me.body).toMatchObject({ isAdministrator: true, name: 'Bootstrap administrator key' });
    });

    it('cannot be deleted, disabled, expired or stripped of its role through the API (409), but can be described', async () => {
      const id = (await bootstrapRows())[0].id;
      for (const res of [
        await h.http.delete(`/api/v1/apikeys/${id}`).set('X-Api-Key', admin()),
        await h.http.put(`/api/v1/apikeys/${id}`).set('X-Api-Key', admin()).send({ isEnabled: false }),
        await h.http.put(`/api/v1/apikeys/${id}`).set('X-Api-Key', admin()).send({ roles: [] }),
        await h.http
          .put(`/api/v1/apikeys/${id}`)
          .set('X-Api-Key', admin())
          .send({ expiresAt: new Date(Date.now() - 1000).toISOString() }),
      ]) {
        expectErrorBody(res, 409, 'CONFLICT');
        expect(res.body.message).toMatch(/MERIDIAN_BOOTSTRAP_API_KEY/);
      }
      expect((await bootstrapRows())[0]).toMatchObject({ is_enabled: true, roles: ['Administrator'], expires_at: null });
      await h.http.put(`/api/v1/apikeys/${id}`).set('X-Api-Key', admin()).send({ description: 'Used by CI' }).expect(200);
      await userinfo(h.adminKey).expect(200);
    });

    it('is ensured idempotently at start-up: same row, repaired if it was tampered with', async () => {
      const [before] = await bootstrapRows();
      await db.query(`UPDATE api_key SET is_enabled = false, roles = '{}', expires_at = now() - interval '1 day' WHERE id = $1`, [
        before.id,
      ]);
      expectErrorBody(await userinfo(h.adminKey), 401, 'UNAUTHORISED');
      const second = await restart(h.adminKey);
      try {
        const rows = await bootstrapRows();
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({
          id: before.id,
          key_hash: before.key_hash,
          is_enabled: true,
          roles: ['Administrator'],
          expires_at: null,
        });
        expect(rows[0].created).toEqual(before.created);
        await second.http.get('/api/v1/apikeys').set('X-Api-Key', h.adminKey).expect(200);
      } finally {
        await second.close();
      }
      // A start with nothing to repair changes nothing.
      const [repaired] = await bootstrapRows();
      const third = await restart(h.adminKey);
      await third.close();
      expect(await bootstrapRows()).toEqual([repaired]);
    });

    it('is re-keyed when the variable changes: the old secret stops working, the new one works', async () => {
      const [before] = await bootstrapRows();
      const next = `mer_${randomBytes(32).toString('base64url')}`;
      const restarted = await restart(next);
      try {
        const rows = await bootstrapRows();
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ id: before.id, key_hash: sha256(next), key_prefix: next.slice(0, 12) });
        expectErrorBody(await restarted.http.get('/api/v1/userinfo').set('X-Api-Key', h.adminKey), 401, 'UNAUTHORISED');
        await restarted.http.get('/api/v1/apikeys').set('X-Api-Key', next).expect(200);
        // Other keys are untouched.
        await restarted.http.get('/api/v1/apikeys').set('X-Api-Key', keeper.key).expect(200);
      } finally {
        await restarted.close();
      }
    });

    it('is removed when the variable is unset, and other keys keep working; setting it again brings it back', async () => {
      const unset = await restart('');
      try {
        expect(await bootstrapRows()).toHaveLength(0);
        const list = (await unset.http.get('/api/v1/apikeys').set('X-Api-Key', keeper.key).expect(200)).body;
        expect(list.some((k: { isBootstrap: boolean }) => k.isBootstrap)).toBe(false);
        expect(list.map((k: { id: string }) => k.id)).toContain(keeper.id);
      } finally {
        await unset.close();
      }
      const again = `mer_${randomBytes(32).toString('base64url')}`;
      const restored = await restart(again);
      try {
        expect(await bootstrapRows()).toHaveLength(1);
        await restored.http.get('/api/v1/apikeys').set('X-Api-Key', again).expect(200);
      } finally {
        await restored.close();
      }
    });
  });
});
