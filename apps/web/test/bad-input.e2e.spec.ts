import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BODY_FIELDS = ['code', 'message', 'details', 'validationErrors', 'errorId', 'timestamp', 'path'];
const CODES = [
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'UNAUTHORISED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
];

interface Res {
  status: number;
  body: any;
  text: string;
  headers: Record<string, string>;
}

/** The error body of ARCHITECTURE.md §4, for the request path, and never a stack trace. */
function expectErrorBody(res: Res, status: number, code: string, path?: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(BODY_FIELDS).toEqual(expect.arrayContaining(Object.keys(res.body)));
  expect(CODES).toContain(res.body.code);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(res.body.timestamp).toMatch(ISO);
  expect(Math.abs(Date.parse(res.body.timestamp) - Date.now())).toBeLessThan(60_000);
  if (path !== undefined) expect(res.body.path).toBe(path);
  expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

function expectFieldError(res: Res, field: string): void {
  expectErrorBody(res, 400, 'VALIDATION_ERROR');
  expect(Object.keys(res.body.validationErrors ?? {})).toContain(field);
}

describe('bad input: every refusal is the right 4xx with the error body, never a 500', () => {
  let h: WebHarness;
  let db: Client;
  let key: string;
  let keyId: string;
  let userId: string;
  const LIMIT = 64 * 1024;

  const count = async (table: string) => Number((await db.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
  const post = (path: string) => h.http.post(path).set('X-Api-Key', key);
  const put = (path: string) => h.http.put(path).set('X-Api-Key', key);
  const get = (path: string) => h.http.get(path).set('X-Api-Key', key);

  beforeAll(async () => {
    h = await startWebApp({ MERIDIAN_BODY_LIMIT: '64kb' });
    key = h.adminKey;
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    keyId = (await post('/api/v1/apikeys').send({ name: 'target' }).expect(201)).body.id;
    userId = (
      await post('/api/v1/metaverse/objects')
        .send({ objectType: 'User', attributes: { 'Display Name': 'Target user' } })
        .expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('routes and methods', () => {
    it.each([
      ['get', '/api/v1/nothing'],
      ['post', '/api/v1/nothing'],
      ['get', '/api/v2/health'],
      ['get', '/api/v1/apikeys/00000000-0000-0000-0000-000000000000/secret'],
      ['get', '/api/v1'],
    ] as const)('answers 404 NOT_FOUND for %s %s, with or without credentials', async (method, path) => {
      expectErrorBody(await h.http[method](path).set('X-Api-Key', key), 404, 'NOT_FOUND', path);
      expectErrorBody(await h.http[method](path), 404, 'NOT_FOUND', path);
    });

    it('reports the path without the query string', async () => {
      expectErrorBody(await get('/api/v1/nowhere?secret=1'), 404, 'NOT_FOUND', '/api/v1/nowhere');
    });

    it.each([
      ['patch', '/api/v1/apikeys/00000000-0000-0000-0000-000000000000', 'GET, PUT, DELETE'],
      ['delete', '/api/v1/apikeys', 'GET, POST'],
      ['post', '/api/v1/health', 'GET'],
      ['put', '/api/v1/activities', 'GET'],
      ['post', '/api/v1/service-settings/Sync.PageSize', 'GET, PUT, DELETE'],
      ['patch', '/api/v1/roles/1/members', 'GET, POST'],
      ['delete', '/api/v1/health/ready', 'GET'],
      ['delete', '/api/v1/service-settings', 'GET'],
    ] as const)('answers 405 for %s %s with Allow: %s', async (method, path, allow) => {
      const res = await h.http[method](path).set('X-Api-Key', key);
      expectErrorBody(res, 405, 'BAD_REQUEST', path);
      expect(res.headers.allow).toBe(allow);
      expect(res.body.message).toContain(method.toUpperCase());
    });
  });

  describe('bodies', () => {
    it.each([
      '{"name":',
      '{name: "unquoted"}',
      "{'name': 'single quotes'}",
      '{"name": "trailing comma",}',
      'null',
      '"just a string"',
      '42',
      'true',
    ])('answers 400 VALIDATION_ERROR for the malformed or non-object JSON body %p', async (text) => {
      const keys = await count('api_key');
      const res = await post('/api/v1/apikeys').set('Content-Type', 'application/json').send(text);
      expectErrorBody(res, 400, 'VALIDATION_ERROR', '/api/v1/apikeys');
      expect(res.body.validationErrors).toEqual({ body: ['must be valid JSON'] });
      const setting = await put('/api/v1/service-settings/Sync.PageSize').set('Content-Type', 'application/json').send(text);
      expectErrorBody(setting, 400, 'VALIDATION_ERROR', '/api/v1/service-settings/Sync.PageSize');
      expect(await count('api_key')).toBe(keys);
      expect(await count("service_setting WHERE key = 'Sync.PageSize'")).toBe(0);
    });

    it.each([
      ['text/plain', '{"name":"x"}'],
      ['application/x-www-form-urlencoded', 'name=x'],
      ['application/xml', '<key><name>x</name></key>'],
      ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--'],
      ['application/json; charset=latin1', '{"name":"x"}'],
    ])('answers 415 for a body of type %s', async (type, text) => {
      const keys = await count('api_key');
      const res = await post('/api/v1/apikeys').set('Content-Type', type).send(text);
      expectErrorBody(res, 415, 'BAD_REQUEST', '/api/v1/apikeys');
      expect(await count('api_key')).toBe(keys);
    });

    it('takes JSON with a charset and +json media types', async () => {
      await post('/api/v1/apikeys').set('Content-Type', 'application/json; charset=utf-8').send('{"name":"utf8"}').expect(201);
      await post('/api/v1/apikeys').set('Content-Type', 'application/merge-patch+json').send('{"name":"plus json"}').expect(201);
    });

    it('answers 413 PAYLOAD_TOO_LARGE for a body over MERIDIAN_BODY_LIMIT, and reads one just under it', async () => {
      const keys = await count('api_key');
      const over = JSON.stringify({ name: 'big', description: 'd'.repeat(LIMIT) });
      const res = await post('/api/v1/apikeys').set('Content-Type', 'application/json').send(over);
      expectErrorBody(res, 413, 'PAYLOAD_TOO_LARGE', '/api/v1/apikeys');
      expect(res.body.message).toContain(String(LIMIT));
      expectErrorBody(
        await put('/api/v1/service-settings/Sync.PageSize')
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ value: 'x'.repeat(LIMIT) })),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      // Just under the limit the body is read and validated on its merits (the description is too long).
      const under = JSON.stringify({ name: 'big', description: 'd'.repeat(LIMIT - 100) });
      expectFieldError(await post('/api/v1/apikeys').set('Content-Type', 'application/json').send(under), 'description');
      expect(await count('api_key')).toBe(keys);
    });

    it.each<[string, string, object, string]>([
      ['POST /apikeys', '/api/v1/apikeys', { name: 'x', owner: 'me' }, 'owner'],
      ['POST /apikeys (a read-only field)', '/api/v1/apikeys', { name: 'x', lastUsedAt: '2030-01-01T00:00:00Z' }, 'lastUsedAt'],
      ['PUT /service-settings', '/api/v1/service-settings/Sync.PageSize', { value: 10, reason: 'why not' }, 'reason'],
      [
        'POST /roles/1/members',
        '/api/v1/roles/1/members',
        { metaverseObjectId: '00000000-0000-0000-0000-000000000000', expires: true },
        'expires',
      ],
      ['POST /metaverse/objects', '/api/v1/metaverse/objects', { objectType: 'User', attributes: {}, origin: 'Projected' }, 'origin'],
    ])('names the unknown field of %s', async (_label, path, body, field) => {
      const res = path.includes('service-settings') ? await put(path).send(body) : await post(path).send(body);
      expectFieldError(res, field);
      expect(res.body.validationErrors[field]).toEqual([`${field} is not a known field`]);
    });

    it('names the unknown field of PUT /apikeys/{id}', async () => {
      expectFieldError(await put(`/api/v1/apikeys/${keyId}`).send({ keyHash: 'x' }), 'keyHash');
    });

    it.each<[string, object, string]>([
      ['name as a number', { name: 5 }, 'name'],
      ['name as an array', { name: ['x'] }, 'name'],
      ['name as an object', { name: { first: 'x' } }, 'name'],
      ['roles as a string', { name: 'x', roles: 'Administrator' }, 'roles'],
      ['roles with an object', { name: 'x', roles: [{ name: 'Administrator' }] }, 'roles'],
      ['isEnabled as a string', { name: 'x', isEnabled: 'yes' }, 'isEnabled'],
      ['expiresAt as a number', { name: 'x', expiresAt: 4102444800000 }, 'expiresAt'],
      ['description as a boolean', { name: 'x', description: false }, 'description'],
    ])('answers 400 naming the field for POST /apikeys with %s', async (_label, body, field) => {
      const keys = await count('api_key');
      expectFieldError(await post('/api/v1/apikeys').send(body), field);
      expect(await count('api_key')).toBe(keys);
    });

    it('answers 400 for an empty body or an array where an object is expected', async () => {
      expectFieldError(await post('/api/v1/apikeys'), 'name');
      expectFieldError(await put('/api/v1/service-settings/Sync.PageSize'), 'value');
      expectErrorBody(await post('/api/v1/apikeys').send([]), 400, 'VALIDATION_ERROR');
      expectErrorBody(await put(`/api/v1/apikeys/${keyId}`).send([{ name: 'x' }]), 400, 'VALIDATION_ERROR');
      expectErrorBody(await post('/api/v1/roles/1/members').send([userId]), 400, 'VALIDATION_ERROR');
    });
  });

  describe('path ids', () => {
    const uuidRoutes: Array<['get' | 'put' | 'delete', (id: string) => string, string]> = [
      ['get', (id) => `/api/v1/apikeys/${id}`, 'id'],
      ['put', (id) => `/api/v1/apikeys/${id}`, 'id'],
      ['delete', (id) => `/api/v1/apikeys/${id}`, 'id'],
      ['get', (id) => `/api/v1/activities/${id}`, 'id'],
      ['get', (id) => `/api/v1/activities/${id}/items`, 'id'],
      ['get', (id) => `/api/v1/activities/${id}/children`, 'id'],
      ['get', (id) => `/api/v1/activities/${id}/stats`, 'id'],
      ['delete', (id) => `/api/v1/roles/1/members/${id}`, 'metaverseObjectId'],
      ['get', (id) => `/api/v1/system/queue-probes/${id}`, 'id'],
    ];
    const badIds = [
      'abc',
      '1',
      'null',
      `${randomUUID()}-1`,
      "x' OR '1'='1",
      'ａｂｃ',
      'z'.repeat(1000),
      '00000000-0000-0000-0000-00000000000g',
    ];

    it.each(badIds)('answers 400 VALIDATION_ERROR naming the parameter for the id %p on every UUID route', async (bad) => {
      for (const [method, route, field] of uuidRoutes) {
        const path = route(encodeURIComponent(bad));
        const res = method === 'put' ? await put(path).send({ name: 'x' }) : await h.http[method](path).set('X-Api-Key', key);
        expectFieldError(res, field);
        expect(res.body.path).toBe(path);
      }
    });

    it('answers 404 (not 400 or 500) for well-formed ids that match nothing', async () => {
      const id = randomUUID();
      for (const [method, route] of uuidRoutes) {
        const res = method === 'put' ? await put(route(id)).send({ name: 'x' }) : await h.http[method](route(id)).set('X-Api-Key', key);
        expectErrorBody(res, 404, 'NOT_FOUND');
      }
    });

    it.each(['abc', '0', '-1', '1.5', '1e3', '0x1', '2147483648', ' 1'])('answers 400 for the role id %p', async (bad) => {
      expectFieldError(await get(`/api/v1/roles/${encodeURIComponent(bad)}`), 'id');
      expectFieldError(await post(`/api/v1/roles/${encodeURIComponent(bad)}/members`).send({ metaverseObjectId: userId }), 'id');
    });

    it('answers 400 BAD_REQUEST for a path with broken percent-encoding', async () => {
      for (const path of ['/api/v1/apikeys/%E0%A4%A', '/api/v1/service-settings/%ZZ', '/api/v1/activities/%']) {
        const res = await get(path);
        expectErrorBody(res, 400, 'BAD_REQUEST');
      }
    });
  });

  describe('queries', () => {
    it.each<[Record<string, string>, string]>([
      [{ page: '0' }, 'page'],
      [{ page: '-5' }, 'page'],
      [{ page: 'first' }, 'page'],
      [{ page: '2.5' }, 'page'],
      [{ pageSize: '101' }, 'pageSize'],
      [{ pageSize: '0' }, 'pageSize'],
      [{ pageSize: '1000000' }, 'pageSize'],
      [{ page: '0x10' }, 'page'],
      [{ pageSize: '1e1' }, 'pageSize'],
      [{ page: ' 2' }, 'page'],
      [{ sortBy: 'id' }, 'sortBy'],
      [{ sortDirection: 'DOWN' }, 'sortDirection'],
      [{ 'page[$gt]': '1' }, 'page[$gt]'],
      [{ filter: 'x' }, 'filter'],
    ])('answers 400 naming the parameter for %p on the activity list', async (query, field) => {
      expectFieldError(await get('/api/v1/activities').query(query), field);
    });

    it('answers 400 for out-of-range paging of execution items, before looking the activity up', async () => {
      expectFieldError(await get(`/api/v1/activities/${randomUUID()}/items?page=0`), 'page');
      expectFieldError(await get(`/api/v1/activities/${randomUUID()}/items?pageSize=101`), 'pageSize');
    });
  });

  describe('text PostgreSQL cannot store', () => {
    it('refuses NUL characters in body fields, naming the field, and stores nothing', async () => {
      const keys = await count('api_key');
      expectFieldError(await post('/api/v1/apikeys').send({ name: 'nul\u0000name' }), 'name');
      expectFieldError(await post('/api/v1/apikeys').send({ name: 'ok', description: '\u0000' }), 'description');
      expectFieldError(await put(`/api/v1/apikeys/${keyId}`).send({ name: 'a\u0000' }), 'name');
      expect(await count('api_key')).toBe(keys);
      const objects = await count('metaverse_object');
      expectFieldError(
        await post('/api/v1/metaverse/objects').send({ objectType: 'User', attributes: { 'Display Name': 'Ada\u0000' } }),
        'attributes.Display Name',
      );
      expectFieldError(
        await post('/api/v1/metaverse/objects').send({ objectType: 'User', attributes: { 'Bad\u0000Name': 'x' } }),
        'attributes',
      );
      expectFieldError(
        await post('/api/v1/metaverse/objects').send({
          objectType: 'User',
          attributes: { Emails: ['a@example.org', 'b\u0000@example.org'] },
        }),
        'attributes.Emails.1',
      );
      expect(await count('metaverse_object')).toBe(objects);
    });

    it('refuses unpaired UTF-16 surrogates (\\ud800 alone), which jsonb cannot hold and text would silently alter', async () => {
      const objects = await count('metaverse_object');
      const keys = await count('api_key');
      const send = (path: string, text: string) => post(path).set('Content-Type', 'application/json').send(text);
      expectFieldError(
        await send('/api/v1/metaverse/objects', '{"objectType":"User","attributes":{"Department":"R\\ud800D"}}'),
        'attributes.Department',
      );
      expectFieldError(
        await send('/api/v1/metaverse/objects', '{"objectType":"User","attributes":{"Department":"\\udc00"}}'),
        'attributes.Department',
      );
      expectFieldError(await send('/api/v1/apikeys', '{"name":"half \\ud83d of an emoji"}'), 'name');
      expect(await count('metaverse_object')).toBe(objects);
      expect(await count('api_key')).toBe(keys);
      // A whole surrogate pair is an ordinary character.
      const emoji = await send('/api/v1/apikeys', '{"name":"rocket \\ud83d\\ude80"}').expect(201);
      expect(emoji.body.name).toBe('rocket \u{1F680}');
      expect((await get(`/api/v1/apikeys/${emoji.body.id}`).expect(200)).body.name).toBe('rocket \u{1F680}');
    });

    it('refuses NUL characters in queries and paths', async () => {
      expectFieldError(await get('/api/v1/activities?search=%00'), 'search');
      expectFieldError(await get('/api/v1/service-settings/Sync%00PageSize'), 'path');
    });
  });

  describe('nesting', () => {
    const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

    it.each([
      ['the description of a key', '/api/v1/apikeys', (deep: string) => `{"name":"x","description":${deep}}`, 'description'],
      [
        'an attribute of a metaverse object',
        '/api/v1/metaverse/objects',
        (deep: string) => `{"objectType":"User","attributes":{"Email":${deep}}}`,
        'attributes',
      ],
      ['a setting value', '/api/v1/service-settings/Sync.PageSize', (deep: string) => `{"value":${deep}}`, 'value'],
    ])('refuses a deeply nested body in %s with 400 naming the field', async (_label, path, wrap, field) => {
      const send = (text: string) =>
        (path.includes('service-settings') ? put(path) : post(path)).set('Content-Type', 'application/json').send(text);
      for (const depth of [40, 10_000]) {
        const res = await send(wrap(nested(depth)));
        expectFieldError(res, field);
        expect(res.body.validationErrors[field].join(' ')).toMatch(/nested more than 32 levels/);
      }
      // Shallow nesting reaches the ordinary validation.
      const shallow = await send(wrap(nested(3)));
      expectErrorBody(shallow, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(shallow.body)).not.toMatch(/nested more than/);
    });

    it('refuses a deeply nested object as a whole body', async () => {
      const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
      expectFieldError(await post('/api/v1/apikeys').set('Content-Type', 'application/json').send(deep), 'a');
    });
  });

  describe('metaverse object values', () => {
    const create = (attributes: Record<string, unknown>, objectType = 'User') =>
      post('/api/v1/metaverse/objects').send({ objectType, attributes });

    it.each<[string, Record<string, unknown>, string]>([
      ['a Guid that is not a GUID', { objectGUID: 'not-a-guid' }, 'attributes.objectGUID'],
      ['a DateTime that is only a number', { 'Employee Start Date': '1' }, 'attributes.Employee Start Date'],
      ['a DateTime in words', { 'Employee Start Date': 'next Monday' }, 'attributes.Employee Start Date'],
      ['an impossible DateTime', { 'Employee Start Date': '2024-13-45' }, 'attributes.Employee Start Date'],
      ['an Integer beyond 32 bits', { 'Employee Number': 2_147_483_648 }, 'attributes.Employee Number'],
      ['an Integer beyond double precision', { 'Employee Number': 1e300 }, 'attributes.Employee Number'],
      ['a fractional Integer', { 'Employee Number': 1.5 }, 'attributes.Employee Number'],
      ['an Integer as text', { 'Employee Number': '12' }, 'attributes.Employee Number'],
      ['a Boolean as text', { 'Account Enabled': 'yes' }, 'attributes.Account Enabled'],
      ['a Reference that is only dashes', { Manager: '-'.repeat(36) }, 'attributes.Manager'],
      ['a display name over 400 characters', { 'Display Name': 'd'.repeat(401) }, 'attributes.Display Name'],
      [
        'an account name over 400 characters standing in for the display name',
        { 'Account Name': 'a'.repeat(401) },
        'attributes.Account Name',
      ],
      ['a text value over 4000 characters', { Department: 'x'.repeat(4001) }, 'attributes.Department'],
      ['several values for a single-valued attribute', { 'First Name': ['Ada', 'Augusta'] }, 'attributes.First Name'],
      ['an attribute the type does not have', { Colour: 'blue' }, 'attributes.Colour'],
      ['a nested value', { 'First Name': { text: 'Ada' } }, 'attributes.First Name'],
    ])('refuses %s with 400 naming the attribute, and stores nothing', async (_label, attributes, field) => {
      const objects = await count('metaverse_object');
      expectFieldError(await create(attributes), field);
      expect(await count('metaverse_object')).toBe(objects);
    });

    it('refuses an unknown object type and attributes that are not an object', async () => {
      expectFieldError(await create({}, 'Printer'), 'objectType');
      expectFieldError(await post('/api/v1/metaverse/objects').send({ objectType: 'User', attributes: ['Display Name'] }), 'attributes');
      expectFieldError(await post('/api/v1/metaverse/objects').send({ objectType: 'User', attributes: null }), 'attributes');
      expectFieldError(await post('/api/v1/metaverse/objects').send({ attributes: {} }), 'objectType');
      expectFieldError(await create({}, ''), 'objectType');
      expectFieldError(await create({}, 'U'.repeat(201)), 'objectType');
      expectFieldError(await post('/api/v1/metaverse/objects').send({ objectType: 7, attributes: {} }), 'objectType');
    });

    it('stores well-formed values, normalising GUIDs and dates', async () => {
      const guid = randomUUID().toUpperCase();
      const displayName = randomBytes(300).toString('base64').slice(0, 400);
      const res = await create({
        'Display Name': displayName,
        objectGUID: guid,
        'Employee Start Date': '2024-02-10',
        'Employee End Date': '2025-06-30T17:00:00+02:00',
        'Employee Number': 2_147_483_647,
        'Account Enabled': true,
        Manager: userId.toUpperCase(),
        Emails: ['a@example.org', 'b@example.org'],
      });
      expect(res.status).toBe(201);
      expect(res.body.displayName).toBe(displayName);
      const {
        rows: [row],
      } = await db.query(
        `SELECT o.display_name, jsonb_object_agg(a.name, o.attributes -> a.id::text) AS values
           FROM metaverse_object o, metaverse_attribute a WHERE o.id = $1 AND o.attributes ? a.id::text GROUP BY o.display_name`,
        [res.body.id],
      );
      expect(row.display_name).toBe(displayName);
      const value = (name: string) => row.values[name].map((v: { v: unknown }) => v.v);
      expect(value('objectGUID')).toEqual([guid.toLowerCase()]);
      expect(value('Employee Start Date')).toEqual(['2024-02-10T00:00:00.000Z']);
      expect(value('Employee End Date')).toEqual(['2025-06-30T15:00:00.000Z']);
      expect(value('Employee Number')).toEqual([2_147_483_647]);
      expect(value('Manager')).toEqual([userId]);
      expect(value('Emails')).toEqual(['a@example.org', 'b@example.org']);
      const activity = (await db.query(`SELECT target_name FROM activity WHERE target_id = $1`, [res.body.id])).rows[0];
      expect(activity.target_name).toBe(displayName);
    });
  });

  it('never answered 500: nothing was logged as an unhandled error', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const logs = fs
      .readdirSync(h.env.logDir)
      .filter((f) => f.endsWith('.log'))
      .map((f) => fs.readFileSync(path.join(h.env.logDir, f), 'utf8'))
      .join('\n');
    expect(logs).not.toMatch(/Unhandled error/);
  });
});
