import { authorisedRequest, expectErrorBody } from '@meridian/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { RESOURCE, ssoSettings, startIdentityProvider, TestIdentityProvider } from './oidc-provider';
import { startWebApp, WebHarness } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE = '/api/v1/roles';

describe('roles (/api/v1/roles)', () => {
  let h: WebHarness;
  let idp: TestIdentityProvider;
  let db: Client;
  let operator: { id: string; key: string };
  let adminRoleId: number;

  const call = (method: 'get' | 'post' | 'delete', path: string, body?: object, key = operator.key) =>
    authorisedRequest(h.http, key, method, path, body);
  const createObject = async (objectType: string, attributes: Record<string, unknown>) =>
    (await call('post', '/api/v1/metaverse/objects', { objectType, attributes }).expect(201)).body as {
      id: string;
      displayName: string | null;
    };
  const memberIds = async (roleId: number) =>
    (await db.query('SELECT metaverse_object_id FROM role_member WHERE role_id = $1 ORDER BY metaverse_object_id', [roleId])).rows.map(
      (r) => r.metaverse_object_id,
    );
  const roleActivities = async () => (await db.query(`SELECT * FROM activity WHERE target_type = 'Role' ORDER BY created, id`)).rows;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    h = await startWebApp(ssoSettings(idp.issuer, { OIDC_AUDIENCE: RESOURCE }));
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    operator = (
      await h.http
        .post('/api/v1/apikeys')
        .set('X-Api-Key', h.adminKey)
        .send({ name: 'Role operator', roles: ['Administrator'] })
        .expect(201)
    ).body;
    adminRoleId = (await db.query(`SELECT id FROM role WHERE name = 'Administrator'`)).rows[0].id;
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
    await idp?.close();
  });

  it('lists the built-in Administrator role', async () => {
    const res = await call('get', BASE).expect(200);
    expect(res.body).toEqual([
      { id: adminRoleId, name: 'Administrator', description: expect.any(String), isBuiltIn: true, memberCount: 0 },
    ]);
    expect((await call('get', `${BASE}/${adminRoleId}`).expect(200)).body).toEqual(res.body[0]);
    expect((await call('get', `${BASE}/${adminRoleId}/members`).expect(200)).body).toEqual([]);
  });

  it('answers 404 for a role that does not exist and 400 for an id that is not a positive integer', async () => {
    for (const path of [`${BASE}/999`, `${BASE}/999/members`, `${BASE}/2147483647`]) {
      const res = await call('get', path);
      expectErrorBody(res, 404, 'NOT_FOUND');
    }
    const user = await createObject('User', { 'Display Name': 'Nobody' });
    expectErrorBody(await call('post', `${BASE}/999/members`, { metaverseObjectId: user.id }), 404, 'NOT_FOUND');
    expectErrorBody(await call('delete', `${BASE}/999/members/${user.id}`), 404, 'NOT_FOUND');
    for (const bad of ['abc', '0', '-1', '1.5', '2147483648', '99999999999', '1e3', '0x1']) {
      for (const path of [`${BASE}/${bad}`, `${BASE}/${bad}/members`]) {
        const res = await call('get', path);
        expectErrorBody(res, 400, 'VALIDATION_ERROR');
        expect(res.body.validationErrors).toHaveProperty('id');
      }
    }
  });

  describe('members', () => {
    let ada: { id: string; displayName: string | null };
    let grace: { id: string; displayName: string | null };

    beforeAll(async () => {
      ada = await createObject('User', { 'Display Name': 'Ada Lovelace', 'Subject Identifier': 'ada' });
      grace = await createObject('user', { 'Account Name': 'grace.hopper' });
    });

    it('adds a User (201, the members after the addition) and records who did it', async () => {
      const before = (await roleActivities()).length;
      const res = await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: ada.id });
      expect(res.status).toBe(201);
      expect(res.body).toEqual([{ metaverseObjectId: ada.id, displayName: 'Ada Lovelace', added: expect.stringMatching(ISO) }]);
      expect(await memberIds(adminRoleId)).toEqual([ada.id]);
      expect((await call('get', `${BASE}/${adminRoleId}`).expect(200)).body.memberCount).toBe(1);
      expect((await call('get', `${BASE}/${adminRoleId}/members`).expect(200)).body).toEqual(res.body);

      const activities = (await roleActivities()).slice(before);
      expect(activities).toHaveLength(1);
      expect(activities[0]).toMatchObject({
        target_type: 'Role',
        target_operation_type: 'Update',
        target_id: String(adminRoleId),
        target_name: 'Administrator',
        initiated_by_type: 'ApiKey',
        initiated_by_id: operator.id,
        initiated_by_name: 'Role operator',
        status: 'Complete',
        details: { added: ada.id },
      });
      expect(activities[0].message).toContain('Ada Lovelace');
      const api = await call('get', `/api/v1/activities/${activities[0].id}`).expect(200);
      expect(api.body).toMatchObject({
        targetType: 'Role',
        targetName: 'Administrator',
        initiatedByType: 'ApiKey',
        initiatedByName: 'Role operator',
      });
    });

    it('adding a member twice (or in upper case) is harmless and records nothing more', async () => {
      const before = (await roleActivities()).length;
      const again = await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: ada.id.toUpperCase() });
      expect(again.status).toBe(201);
      expect(again.body.map((m: { metaverseObjectId: string }) => m.metaverseObjectId)).toEqual([ada.id]);
      expect(await memberIds(adminRoleId)).toEqual([ada.id]);
      expect((await roleActivities()).length).toBe(before);
    });

    it.each<[string, () => object, string]>([
      ['a metaverse object that does not exist', () => ({ metaverseObjectId: randomUUID() }), 'metaverseObjectId'],
      ['an id that is not a UUID', () => ({ metaverseObjectId: 'ada' }), 'metaverseObjectId'],
      ['a number', () => ({ metaverseObjectId: 42 }), 'metaverseObjectId'],
      ['no id', () => ({}), 'metaverseObjectId'],
      ['an unknown field', () => ({ metaverseObjectId: randomUUID(), role: 'Administrator' }), 'role'],
    ])('refuses %s with 400 VALIDATION_ERROR and adds nobody', async (_label, body, field) => {
      const before = await memberIds(adminRoleId);
      const res = await call('post', `${BASE}/${adminRoleId}/members`, body());
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(res.body.validationErrors).toHaveProperty(field);
      expect(await memberIds(adminRoleId)).toEqual(before);
    });

    it('refuses a metaverse object that is not a User', async () => {
      const group = await createObject('Group', { 'Display Name': 'Engineers' });
      const res = await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: group.id });
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(res.body.validationErrors.metaverseObjectId[0]).toMatch(/not a User/);
      expect(await memberIds(adminRoleId)).not.toContain(group.id);
    });

    it('refuses to remove the last Administrator (409) and keeps the member', async () => {
      const before = (await roleActivities()).length;
      const res = await call('delete', `${BASE}/${adminRoleId}/members/${ada.id}`);
      expectErrorBody(res, 409, 'CONFLICT');
      expect(res.body.message).toMatch(/last member of the Administrator role/);
      expect(await memberIds(adminRoleId)).toEqual([ada.id]);
      expect((await roleActivities()).length).toBe(before);
    });

    it('removes a member (204) once another Administrator exists, and records it', async () => {
      const added = await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: grace.id }).expect(201);
      // Ordered by display name; grace has only an account name, which becomes her display name.
      expect(added.body.map((m: { displayName: string }) => m.displayName)).toEqual(['Ada Lovelace', 'grace.hopper']);
      const before = (await roleActivities()).length;
      const res = await call('delete', `${BASE}/${adminRoleId}/members/${ada.id.toUpperCase()}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await memberIds(adminRoleId)).toEqual([grace.id]);
      const activities = (await roleActivities()).slice(before);
      expect(activities).toHaveLength(1);
      expect(activities[0]).toMatchObject({
        target_type: 'Role',
        target_name: 'Administrator',
        initiated_by_name: 'Role operator',
        details: { removed: ada.id },
      });
      expect((await call('get', `${BASE}/${adminRoleId}`).expect(200)).body.memberCount).toBe(1);
    });

    it('answers 404 for removing someone who is not a member, and 400 for an id that is not a UUID', async () => {
      const res = await call('delete', `${BASE}/${adminRoleId}/members/${ada.id}`);
      expectErrorBody(res, 404, 'NOT_FOUND');
      expectErrorBody(await call('delete', `${BASE}/${adminRoleId}/members/${randomUUID()}`), 404, 'NOT_FOUND');
      const invalid = await call('delete', `${BASE}/${adminRoleId}/members/ada`);
      expectErrorBody(invalid, 400, 'VALIDATION_ERROR');
      expect(invalid.body.validationErrors).toHaveProperty('metaverseObjectId');
      expect(await memberIds(adminRoleId)).toEqual([grace.id]);
    });

    it('drops the membership when the metaverse object is deleted', async () => {
      const temp = await createObject('User', { 'Display Name': 'Temporary' });
      await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: temp.id }).expect(201);
      await db.query('DELETE FROM metaverse_object WHERE id = $1', [temp.id]);
      expect(await memberIds(adminRoleId)).toEqual([grace.id]);
      expect(
        (await call('get', `${BASE}/${adminRoleId}/members`).expect(200)).body.map(
          (m: { metaverseObjectId: string }) => m.metaverseObjectId,
        ),
      ).toEqual([grace.id]);
    });
  });

  describe('signing in with OIDC', () => {
    const bearer = async (subject: string) =>
      `Bearer ${await idp.sign({ sub: subject, iss: idp.issuer, aud: RESOURCE }, { expiresIn: '5m' })}`;

    it('makes a member of the Administrator role an administrator, and removing the membership takes it away', async () => {
      const olivia = await createObject('User', { 'Display Name': 'Olivia Operator', 'Subject Identifier': 'olivia' });
      const token = await bearer('olivia');
      expect((await h.http.get('/api/v1/userinfo').set('Authorization', token).expect(200)).body).toMatchObject({
        authorised: true,
        isAdministrator: false,
        roles: [],
        metaverseObjectId: olivia.id,
      });
      expectErrorBody(await h.http.get(BASE).set('Authorization', token), 403, 'FORBIDDEN');

      await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: olivia.id }).expect(201);
      expect((await h.http.get('/api/v1/userinfo').set('Authorization', token).expect(200)).body).toMatchObject({
        isAdministrator: true,
        roles: ['Administrator'],
      });
      await h.http.get(BASE).set('Authorization', token).expect(200);

      // Olivia removes someone else: the activity names her as a User.
      const other = await createObject('User', { 'Display Name': 'Someone Else' });
      await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: other.id }).expect(201);
      await h.http.delete(`${BASE}/${adminRoleId}/members/${other.id}`).set('Authorization', token).expect(204);
      const [last] = (await roleActivities()).slice(-1);
      expect(last).toMatchObject({
        initiated_by_type: 'User',
        initiated_by_id: olivia.id,
        initiated_by_name: 'Olivia Operator',
        details: { removed: other.id },
      });

      await call('delete', `${BASE}/${adminRoleId}/members/${olivia.id}`).expect(204);
      expect((await h.http.get('/api/v1/userinfo').set('Authorization', token).expect(200)).body).toMatchObject({
        isAdministrator: false,
        roles: [],
      });
      expectErrorBody(await h.http.get(BASE).set('Authorization', token), 403, 'FORBIDDEN');
    });

    it('records changes by an administrator whose display name is as long as allowed', async () => {
      const name = `Dr ${'Long-Named '.repeat(36)}`.slice(0, 400);
      const long = await createObject('User', { 'Display Name': name, 'Subject Identifier': 'long' });
      await call('post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: long.id }).expect(201);
      try {
        const token = await bearer('long');
        const res = await h.http.put('/api/v1/service-settings/Sync.PageSize').set('Authorization', token).send({ value: 900 });
        expect(res.status).toBe(200);
        const [activity] = (await db.query(`SELECT * FROM activity WHERE target_type = 'ServiceSetting' ORDER BY created DESC LIMIT 1`))
          .rows;
        expect(activity).toMatchObject({ initiated_by_type: 'User', initiated_by_id: long.id });
        // The name is cut to the width of the initiator columns rather than failing the change.
        expect(activity.initiated_by_name).toBe(name.slice(0, 300));
        expect((await db.query(`SELECT last_updated_by FROM service_setting WHERE key = 'Sync.PageSize'`)).rows[0].last_updated_by).toBe(
          name.slice(0, 300),
        );
      } finally {
        await call('delete', `${BASE}/${adminRoleId}/members/${long.id}`).expect(204);
      }
    });
  });

  describe('access', () => {
    it('needs credentials (401) and the Administrator role (403); a refused change changes nothing', async () => {
      const reader = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'no roles' }).expect(201)).body;
      const user = await createObject('User', { 'Display Name': 'Mallory' });
      const before = await memberIds(adminRoleId);
      for (const [method, path, body] of [
        ['get', BASE, undefined],
        ['get', `${BASE}/${adminRoleId}`, undefined],
        ['get', `${BASE}/${adminRoleId}/members`, undefined],
        ['post', `${BASE}/${adminRoleId}/members`, { metaverseObjectId: user.id }],
        ['delete', `${BASE}/${adminRoleId}/members/${before[0]}`, undefined],
      ] as const) {
        const anonymous = body === undefined ? h.http[method](path) : h.http[method](path).send(body);
        expectErrorBody(await anonymous, 401, 'UNAUTHORISED');
        expectErrorBody(await call(method, path, body, reader.key), 403, 'FORBIDDEN');
      }
      expect(await memberIds(adminRoleId)).toEqual(before);
    });

    it('answers 405 with Allow for methods a role does not support', async () => {
      const res = await h.http.delete(`${BASE}/${adminRoleId}`).set('X-Api-Key', operator.key);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET');
      const members = await h.http.put(`${BASE}/${adminRoleId}/members`).set('X-Api-Key', operator.key).send({});
      expect(members.status).toBe(405);
      expect(members.headers.allow).toBe('GET, POST');
    });
  });
});
