import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/synchronisation/connected-systems';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ENVELOPE = ['hasNextPage', 'hasPreviousPage', 'items', 'page', 'pageSize', 'totalCount', 'totalCountIsExact', 'totalPages'];
const ITEM_FIELDS = [
  'id',
  'externalId',
  'secondaryExternalId',
  'displayName',
  'objectTypeId',
  'objectTypeName',
  'status',
  'metaverseObjectId',
  'joinType',
  'created',
  'lastUpdated',
  'pendingExportCount',
];
const PE_FIELDS = [
  'id',
  'connectedSystemObjectId',
  'externalId',
  'displayName',
  'changeType',
  'status',
  'attributeChanges',
  'errorCount',
  'confirmationAttempts',
  'nextAttemptAt',
  'lastError',
  'created',
  'lastUpdated',
];

interface Res {
  status: number;
  body: any;
}

function expectError(res: Res, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.timestamp).toMatch(ISO);
}

/**
 * The connector space as imports, synchronisation and exports leave it, written with SQL: an HR
 * system of 60 people and 10 groups (20 people joined, 5 obsolete, 5 awaiting provisioning), a
 * second system, and pending exports of several kinds.
 */
describe('connector space and pending exports (/api/v1/synchronisation/connected-systems/{id}/…)', () => {
  let h: WebHarness;
  let db: Client;
  let hr: number;
  let ad: number;
  let person: number;
  let group: number;
  let adUser: number;
  const attr: Record<string, number> = {};
  let ada: string;
  let adaMvo: string;
  let adObject: string;
  let provisioned: string[];
  let obsolete: string;
  let total: number;

  const get = (path: string, query: Record<string, string | number | boolean> = {}, key = h.adminKey) =>
    h.http.get(path).query(query).set('X-Api-Key', key);
  const list = (query: Record<string, string | number | boolean> = {}, system = hr) => get(`${BASE}/${system}/connector-space`, query);
  const exports = (query: Record<string, string | number> = {}, system = hr) => get(`${BASE}/${system}/pending-exports`, query);
  const sql = async (text: string, params: unknown[] = []) => (await db.query(text, params)).rows;
  const idsInOrder = async (where: string, params: unknown[]) =>
    (await sql(`SELECT id FROM connected_system_object c WHERE ${where} ORDER BY id`, params)).map((r) => r.id as string);

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    [{ id: hr }] = await sql(`INSERT INTO connected_system (name, connector_type) VALUES ('HR', 'File') RETURNING id`);
    [{ id: ad }] = await sql(`INSERT INTO connected_system (name, connector_type) VALUES ('Directory', 'File') RETURNING id`);
    [{ id: person }] = await sql(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'person', true) RETURNING id`,
      [hr],
    );
    [{ id: group }] = await sql(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'group', true) RETURNING id`,
      [hr],
    );
    [{ id: adUser }] = await sql(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'user', true) RETURNING id`,
      [ad],
    );
    for (const [name, type, plurality] of [
      ['employeeId', 'String', 'Single'],
      ['displayName', 'String', 'Single'],
      ['mail', 'String', 'Multi'],
      ['manager', 'Reference', 'Single'],
      ['startDate', 'DateTime', 'Single'],
    ]) {
      [{ id: attr[name] }] = await sql(
        `INSERT INTO connected_system_attribute (object_type_id, name, type, plurality, selected, is_external_id)
        VALUES ($1, $2, $3, $4, true, $5) RETURNING id`,
        [person, name, type, plurality, name === 'employeeId'],
      );
    }
    const [{ id: mvType }] = await sql(`SELECT id FROM metaverse_object_type WHERE name = 'User'`);
    const mvos = (
      await sql(
        `INSERT INTO metaverse_object (type_id, origin, display_name) SELECT $1, 'Projected', 'MV person ' || g FROM generate_series(1, 20) g RETURNING id`,
        [mvType],
      )
    ).map((r) => r.id as string);
    [{ id: adaMvo }] = await sql(
      `INSERT INTO metaverse_object (type_id, origin, display_name) VALUES ($1, 'Projected', 'Ada Lovelace') RETURNING id`,
      [mvType],
    );

    // People E001…E060: 1–20 joined (projected), 51–55 obsolete, 56–60 provisioned and not yet exported (no external ID).
    await sql(
      `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, secondary_external_id, display_name, status, metaverse_object_id,
                 join_type, attributes, sync_pending)
               SELECT $1, $2, CASE WHEN g > 55 THEN NULL ELSE 'E' || lpad(g::text, 3, '0') END, 'CN=Person ' || lpad(g::text, 3, '0') || ',OU=HR',
                      'Person ' || lpad(g::text, 3, '0'),
                      CASE WHEN g BETWEEN 51 AND 55 THEN 'Obsolete' WHEN g > 55 THEN 'PendingProvisioning' ELSE 'Normal' END,
                      ($3::uuid[])[g], CASE WHEN g <= 20 THEN 'Projected' END, '{}', false
                 FROM generate_series(1, 60) g`,
      [hr, person, mvos],
    );
    await sql(
      `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name)
               SELECT $1, $2, 'G' || lpad(g::text, 2, '0'), 'Group ' || g FROM generate_series(1, 10) g`,
      [hr, group],
    );
    // Names for the search: a letter case mix, and wildcard characters that must match literally.
    const boss = randomUUID();
    ada = randomUUID();
    await sql(
      `INSERT INTO connected_system_object (id, connected_system_id, object_type_id, external_id, secondary_external_id, display_name)
               VALUES ($1, $2, $3, 'X-100%', 'CN=Grace Hopper,OU=Navy', 'Grace_Hopper')`,
      [boss, hr, person],
    );
    await sql(
      `INSERT INTO connected_system_object (id, connected_system_id, object_type_id, external_id, secondary_external_id, display_name, metaverse_object_id,
                 join_type, attributes, resolved_references, sync_pending, last_updated)
               VALUES ($1, $2, $3, 'ADA-1815', 'CN=Ada Lovelace,OU=People', 'Ada Lovelace', $4, 'Joined', $5, $6, true, now())`,
      [
        ada,
        hr,
        person,
        adaMvo,
        JSON.stringify({
          [attr.employeeId]: ['ADA-1815'],
          [attr.mail]: ['ada@example.org', 'countess@example.org'],
          [attr.manager]: ['CN=Grace Hopper,OU=Navy', 'CN=Nobody'],
          [attr.startDate]: ['1833-06-05T00:00:00.000Z'],
          [attr.displayName]: ['Ada Lovelace'],
          999999: ['from a deleted attribute'],
        }),
        JSON.stringify({ [attr.manager]: [boss, null] }),
      ],
    );
    [{ id: adObject }] = await sql(
      `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name)
               VALUES ($1, $2, 'ada', 'Ada in AD') RETURNING id`,
      [ad, adUser],
    );

    provisioned = (
      await sql(
        `SELECT id FROM connected_system_object WHERE connected_system_id = $1 AND status = 'PendingProvisioning' ORDER BY display_name`,
        [hr],
      )
    ).map((r) => r.id);
    [{ id: obsolete }] = await sql(`SELECT id FROM connected_system_object WHERE external_id = 'E053'`);
    // Pending exports: a Create per provisioned person (one failed, one retrying), an exported Update of Ada awaiting confirmation,
    // a pending Update of Ada, and a Delete.
    for (const [i, id] of provisioned.entries()) {
      await sql(
        `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type, status, attribute_changes, error_count, next_attempt_at, last_error)
                 VALUES ($1, $2, 'Create', $3, $4, $5, $6, $7)`,
        [
          hr,
          id,
          i === 0 ? 'Failed' : 'Pending',
          JSON.stringify([
            { a: attr.displayName, op: 'Add', v: [`New ${i}`] },
            { a: attr.manager, op: 'Add', v: [], mv: [adaMvo] },
          ]),
          i <= 1 ? 5 - i : 0,
          i === 1 ? '2030-01-01T00:00:00Z' : null,
          i <= 1 ? 'The directory refused the write.' : null,
        ],
      );
    }
    await sql(
      `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type, status, attribute_changes, confirmation_attempts, created, last_updated)
               VALUES ($1, $2, 'Update', 'Exported', $3, 2, now() - interval '1 hour', now()),
                      ($1, $2, 'Update', 'Pending', $4, 0, now(), NULL)`,
      [
        hr,
        ada,
        JSON.stringify([{ a: attr.mail, op: 'Replace', v: ['ada@example.org'] }]),
        JSON.stringify([
          { a: attr.startDate, op: 'RemoveAll', v: [] },
          { a: 424242, op: 'Add', v: [1] },
        ]),
      ],
    );
    await sql(`INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type) VALUES ($1, $2, 'Delete')`, [
      hr,
      obsolete,
    ]);
    total = Number((await sql(`SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1`, [hr]))[0].count);
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('GET …/connector-space', () => {
    it('answers the paginated envelope with the defaults, ordered by id', async () => {
      expect(total).toBe(72);
      const res = await list().expect(200);
      expect(Object.keys(res.body).sort()).toEqual(ENVELOPE);
      expect(res.body).toMatchObject({
        totalCount: 72,
        totalCountIsExact: true,
        page: 1,
        pageSize: 25,
        totalPages: 3,
        hasNextPage: true,
        hasPreviousPage: false,
      });
      for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual([...ITEM_FIELDS].sort());
      expect(res.body.items.map((i: { id: string }) => i.id)).toEqual((await idsInOrder('connected_system_id = $1', [hr])).slice(0, 25));
    });

    it('pages through every object of the system exactly once', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await list({ page, pageSize: 30 }).expect(200);
        expect(res.body).toMatchObject({ totalCount: 72, page, totalPages: 3, hasNextPage: page < 3, hasPreviousPage: page > 1 });
        seen.push(...res.body.items.map((i: { id: string }) => i.id));
      }
      expect(seen).toEqual(await idsInOrder('connected_system_id = $1', [hr]));
      expect(seen).not.toContain(adObject);
      expect((await list({ page: 4, pageSize: 30 }).expect(200)).body).toMatchObject({
        items: [],
        totalCount: 72,
        hasNextPage: false,
        hasPreviousPage: true,
      });
    });

    it('describes each object: type, status, join and its pending exports', async () => {
      const items = (await list({ pageSize: 100 }).expect(200)).body.items;
      const byId = new Map(items.map((i: any) => [i.id, i]));
      expect(byId.get(ada)).toEqual({
        id: ada,
        externalId: 'ADA-1815',
        secondaryExternalId: 'CN=Ada Lovelace,OU=People',
        displayName: 'Ada Lovelace',
        objectTypeId: person,
        objectTypeName: 'person',
        status: 'Normal',
        metaverseObjectId: adaMvo,
        joinType: 'Joined',
        created: expect.stringMatching(ISO),
        lastUpdated: expect.stringMatching(ISO),
        pendingExportCount: 2,
      });
      expect(byId.get(provisioned[0])).toMatchObject({
        externalId: null,
        status: 'PendingProvisioning',
        metaverseObjectId: null,
        joinType: null,
        lastUpdated: null,
        pendingExportCount: 1,
      });
      expect(byId.get(obsolete)).toMatchObject({ externalId: 'E053', status: 'Obsolete', pendingExportCount: 1 });
    });

    it.each<[string, () => Record<string, string | number | boolean>, number]>([
      ['status Obsolete', () => ({ status: 'Obsolete' }), 5],
      ['status PendingProvisioning', () => ({ status: 'PendingProvisioning' }), 5],
      ['status Normal', () => ({ status: 'Normal' }), 62],
      ['joined', () => ({ joined: true }), 21],
      ['not joined', () => ({ joined: 'false' }), 51],
      ['an object type', () => ({ objectTypeId: group }), 10],
      ['type, status and join together', () => ({ objectTypeId: person, status: 'Normal', joined: true }), 21],
    ])('filters by %s', async (_label, queryOf, expected) => {
      const query = queryOf();
      const res = await list({ ...query, pageSize: 100 }).expect(200);
      expect(res.body).toMatchObject({ totalCount: expected, totalCountIsExact: true, hasNextPage: false });
      expect(res.body.items).toHaveLength(expected);
      const ids = res.body.items.map((i: { id: string }) => i.id);
      expect(ids).toEqual([...ids].sort());
      for (const item of res.body.items) {
        if (query.status) expect(item.status).toBe(query.status);
        if (query.objectTypeId) expect(item.objectTypeId).toBe(query.objectTypeId);
        if (query.joined !== undefined) expect(item.metaverseObjectId !== null).toBe(String(query.joined) === 'true');
      }
      // Paged, a filtered list keeps its count and order.
      const second = await list({ ...query, pageSize: 3, page: 2 }).expect(200);
      expect(second.body).toMatchObject({ totalCount: expected, totalPages: Math.ceil(expected / 3) });
      expect(second.body.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(3, 6));
    });

    it('searches external ID, secondary external ID and display name by prefix, ignoring case, with wildcards taken literally', async () => {
      const names = async (search: string) =>
        (await list({ search, pageSize: 100 }).expect(200)).body.items.map((i: { displayName: string }) => i.displayName).sort();
      expect(await names('e00')).toEqual([
        'Person 001',
        'Person 002',
        'Person 003',
        'Person 004',
        'Person 005',
        'Person 006',
        'Person 007',
        'Person 008',
        'Person 009',
      ]);
      expect(await names('ada-')).toEqual(['Ada Lovelace']);
      expect(await names('cn=ADA')).toEqual(['Ada Lovelace']);
      expect(await names('  ada lo ')).toEqual(['Ada Lovelace']);
      expect(await names('Group 1')).toEqual(['Group 1', 'Group 10']);
      expect(await names('lovelace')).toEqual([]);
      expect(await names('x-100%')).toEqual(['Grace_Hopper']);
      expect(await names('Grace_')).toEqual(['Grace_Hopper']);
      for (const literal of ['%', '_', 'Grace%', 'E_01', 'X-1000']) expect(await names(literal)).toEqual([]);
      expect((await list({ search: 'person 05', status: 'Obsolete' }).expect(200)).body.totalCount).toBe(5);
      expect((await list({ search: '' }).expect(200)).body.totalCount).toBe(72);
    });

    it('counts exactly up to 1,000 past the start of the page, then says the count stopped', async () => {
      const [{ id: big }] = await sql(`INSERT INTO connected_system (name, connector_type) VALUES ('Big', 'File') RETURNING id`);
      const [{ id: bigType }] = await sql(
        `INSERT INTO connected_system_object_type (connected_system_id, name) VALUES ($1, 'thing') RETURNING id`,
        [big],
      );
      await sql(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name, status)
                 SELECT $1, $2, 'T' || g, 'Thing ' || g, CASE WHEN g % 100 = 0 THEN 'Obsolete' ELSE 'Normal' END FROM generate_series(1, 1100) g`,
        [big, bigType],
      );
      const all = await idsInOrder('connected_system_id = $1', [big]);
      const normal = await idsInOrder(`connected_system_id = $1 AND status = 'Normal'`, [big]);
      for (const query of [{}, { status: 'Normal' }, { search: 'thing' }] as Array<Record<string, string>>) {
        const expected = 'status' in query ? normal : all;
        const first = await list(query, big).expect(200);
        expect(first.body).toMatchObject({ totalCount: 1000, totalCountIsExact: false, totalPages: 40, hasNextPage: true });
        expect(first.body.items.map((i: { id: string }) => i.id)).toEqual(expected.slice(0, 25));
        const later = await list({ ...query, page: 3, pageSize: 100 }, big).expect(200);
        expect(later.body).toMatchObject({ totalCount: expected.length, totalCountIsExact: true, totalPages: 11, hasNextPage: true });
        expect(later.body.items.map((i: { id: string }) => i.id)).toEqual(expected.slice(200, 300));
      }
      expect((await list({ status: 'Obsolete', pageSize: 5, page: 2 }, big).expect(200)).body).toMatchObject({
        totalCount: 11,
        totalCountIsExact: true,
        totalPages: 3,
      });
    });

    it.each<[string, Record<string, string>, string]>([
      ['an unknown status', { status: 'Deleted' }, 'status'],
      ['a status in the wrong case', { status: 'normal' }, 'status'],
      ['joined that is not true or false', { joined: 'yes' }, 'joined'],
      ['an objectTypeId that is not a number', { objectTypeId: 'person' }, 'objectTypeId'],
      ['objectTypeId 0', { objectTypeId: '0' }, 'objectTypeId'],
      ['an objectTypeId beyond the id range', { objectTypeId: '99999999999' }, 'objectTypeId'],
      ['a search over 200 characters', { search: 's'.repeat(201) }, 'search'],
      ['pageSize 101', { pageSize: '101' }, 'pageSize'],
      ['page 0', { page: '0' }, 'page'],
      ['an unknown parameter', { sortBy: 'id' }, 'sortBy'],
    ])('refuses %s with 400 VALIDATION_ERROR naming the parameter', async (_label, query, field) => {
      const res = await list(query);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(Object.keys(res.body.validationErrors)).toContain(field);
    });

    it('refuses an object type of another system with 400, and answers 404 for an unknown system', async () => {
      const res = await list({ objectTypeId: adUser });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.validationErrors).toHaveProperty('objectTypeId');
      const missing = await get(`${BASE}/987654/connector-space`);
      expectError(missing, 404, 'NOT_FOUND');
      expect(missing.body.message).toContain('987654');
      expectError(await get(`${BASE}/abc/connector-space`), 400, 'VALIDATION_ERROR');
    });
  });

  describe('GET …/connector-space/{objectId}', () => {
    it('returns values by attribute name, resolved references, the join and the pending exports', async () => {
      const res = await get(`${BASE}/${hr}/connector-space/${ada}`).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(
        [...ITEM_FIELDS, 'syncPending', 'attributeValues', 'resolvedReferences', 'metaverseObject', 'pendingExports'].sort(),
      );
      expect(res.body).toMatchObject({
        id: ada,
        externalId: 'ADA-1815',
        objectTypeName: 'person',
        joinType: 'Joined',
        syncPending: true,
        pendingExportCount: 2,
        metaverseObject: { id: adaMvo, displayName: 'Ada Lovelace', typeName: 'User' },
      });
      expect(res.body.attributeValues).toEqual([
        { attributeId: attr.displayName, attributeName: 'displayName', attributeType: 'String', values: ['Ada Lovelace'] },
        { attributeId: attr.employeeId, attributeName: 'employeeId', attributeType: 'String', values: ['ADA-1815'] },
        { attributeId: attr.mail, attributeName: 'mail', attributeType: 'String', values: ['ada@example.org', 'countess@example.org'] },
        {
          attributeId: attr.manager,
          attributeName: 'manager',
          attributeType: 'Reference',
          values: ['CN=Grace Hopper,OU=Navy', 'CN=Nobody'],
        },
        { attributeId: attr.startDate, attributeName: 'startDate', attributeType: 'DateTime', values: ['1833-06-05T00:00:00.000Z'] },
        { attributeId: 999999, attributeName: null, attributeType: null, values: ['from a deleted attribute'] },
      ]);
      const [{ id: boss }] = await sql(`SELECT id FROM connected_system_object WHERE external_id = 'X-100%'`);
      expect(res.body.resolvedReferences).toEqual([
        { attributeId: attr.manager, attributeName: 'manager', connectedSystemObjectIds: [boss, null] },
      ]);
      expect(res.body.pendingExports).toHaveLength(2);
      for (const pe of res.body.pendingExports) expect(Object.keys(pe).sort()).toEqual([...PE_FIELDS].sort());
      expect(res.body.pendingExports.map((pe: { status: string }) => pe.status)).toEqual(['Exported', 'Pending']);
      expect(res.body.pendingExports[0]).toMatchObject({
        connectedSystemObjectId: ada,
        externalId: 'ADA-1815',
        displayName: 'Ada Lovelace',
        changeType: 'Update',
        confirmationAttempts: 2,
        errorCount: 0,
        lastUpdated: expect.stringMatching(ISO),
        attributeChanges: [
          { attributeId: attr.mail, attributeName: 'mail', operation: 'Replace', values: ['ada@example.org'], metaverseObjectIds: null },
        ],
      });
      expect(res.body.pendingExports[1].attributeChanges).toEqual([
        { attributeId: attr.startDate, attributeName: 'startDate', operation: 'RemoveAll', values: [], metaverseObjectIds: null },
        { attributeId: 424242, attributeName: null, operation: 'Add', values: [1], metaverseObjectIds: null },
      ]);
    });

    it('shows an unjoined object without references or exports', async () => {
      const [{ id }] = await sql(`SELECT id FROM connected_system_object WHERE external_id = 'G01'`);
      expect((await get(`${BASE}/${hr}/connector-space/${id}`).expect(200)).body).toMatchObject({
        id,
        objectTypeName: 'group',
        metaverseObject: null,
        metaverseObjectId: null,
        resolvedReferences: null,
        attributeValues: [],
        pendingExports: [],
        syncPending: true,
      });
      expect((await get(`${BASE}/${hr}/connector-space/${ada.toUpperCase()}`).expect(200)).body.id).toBe(ada);
    });

    it('answers 404 for an unknown system or object, and for an object of another system; 400 for ids of the wrong form', async () => {
      expectError(await get(`${BASE}/987654/connector-space/${ada}`), 404, 'NOT_FOUND');
      expectError(await get(`${BASE}/${hr}/connector-space/${randomUUID()}`), 404, 'NOT_FOUND');
      expectError(await get(`${BASE}/${hr}/connector-space/${adObject}`), 404, 'NOT_FOUND');
      await get(`${BASE}/${ad}/connector-space/${adObject}`).expect(200);
      const bad = await get(`${BASE}/${hr}/connector-space/not-a-uuid`);
      expectError(bad, 400, 'VALIDATION_ERROR');
      expect(bad.body.validationErrors).toHaveProperty('objectId');
      expectError(await get(`${BASE}/0/connector-space/${ada}`), 400, 'VALIDATION_ERROR');
    });
  });

  describe('GET …/pending-exports', () => {
    it('lists the staged changes of the system in id order, with attribute names', async () => {
      const res = await exports().expect(200);
      expect(Object.keys(res.body).sort()).toEqual(ENVELOPE);
      expect(res.body).toMatchObject({ totalCount: 8, totalCountIsExact: true, page: 1, pageSize: 25, totalPages: 1, hasNextPage: false });
      const ids = res.body.items.map((pe: { id: string }) => pe.id);
      expect(ids).toEqual((await sql(`SELECT id FROM pending_export WHERE connected_system_id = $1 ORDER BY id`, [hr])).map((r) => r.id));
      for (const pe of res.body.items) expect(Object.keys(pe).sort()).toEqual([...PE_FIELDS].sort());
      const failed = res.body.items.find((pe: { status: string }) => pe.status === 'Failed');
      expect(failed).toEqual({
        id: expect.any(String),
        connectedSystemObjectId: provisioned[0],
        externalId: null,
        displayName: 'Person 056',
        changeType: 'Create',
        status: 'Failed',
        attributeChanges: [
          { attributeId: attr.displayName, attributeName: 'displayName', operation: 'Add', values: ['New 0'], metaverseObjectIds: null },
          { attributeId: attr.manager, attributeName: 'manager', operation: 'Add', values: [], metaverseObjectIds: [adaMvo] },
        ],
        errorCount: 5,
        confirmationAttempts: 0,
        nextAttemptAt: null,
        lastError: 'The directory refused the write.',
        created: expect.stringMatching(ISO),
        lastUpdated: null,
      });
      expect(res.body.items.find((pe: { connectedSystemObjectId: string }) => pe.connectedSystemObjectId === provisioned[1])).toMatchObject(
        { status: 'Pending', errorCount: 4, nextAttemptAt: '2030-01-01T00:00:00.000Z' },
      );
    });

    it.each<[Record<string, string>, number]>([
      [{ status: 'Pending' }, 6],
      [{ status: 'Exported' }, 1],
      [{ status: 'Failed' }, 1],
      [{ changeType: 'Create' }, 5],
      [{ changeType: 'Update' }, 2],
      [{ changeType: 'Delete' }, 1],
      [{ status: 'Pending', changeType: 'Update' }, 1],
      [{ status: 'Exported', changeType: 'Delete' }, 0],
    ])('filters by %j', async (query, expected) => {
      const res = await exports(query).expect(200);
      expect(res.body).toMatchObject({ totalCount: expected, totalCountIsExact: true });
      expect(res.body.items).toHaveLength(expected);
      for (const pe of res.body.items) expect(pe).toMatchObject(query);
    });

    it('pages in id order across statuses', async () => {
      const all = (await exports({ pageSize: 100 }).expect(200)).body.items.map((pe: { id: string }) => pe.id);
      const paged: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await exports({ page, pageSize: 3 }).expect(200);
        expect(res.body).toMatchObject({ totalCount: 8, totalPages: 3, page, hasNextPage: page < 3 });
        paged.push(...res.body.items.map((pe: { id: string }) => pe.id));
      }
      expect(paged).toEqual(all);
    });

    it('answers an empty page for a system without exports, 404 for an unknown system, 400 for bad values', async () => {
      expect((await exports({}, ad).expect(200)).body).toMatchObject({ items: [], totalCount: 0, totalPages: 0 });
      expectError(await get(`${BASE}/987654/pending-exports`), 404, 'NOT_FOUND');
      for (const [field, value] of [
        ['status', 'Queued'],
        ['changeType', 'Rename'],
        ['changeType', 'create'],
        ['pageSize', '101'],
        ['connectedSystemObjectId', ada],
      ]) {
        const res = await exports({ [field]: value });
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(res.body.validationErrors).toHaveProperty(field);
      }
    });
  });

  it('needs credentials (401) and the Administrator role (403) on every route', async () => {
    const reader = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'no roles' }).expect(201)).body;
    for (const path of [`${BASE}/${hr}/connector-space`, `${BASE}/${hr}/connector-space/${ada}`, `${BASE}/${hr}/pending-exports`]) {
      expectError(await h.http.get(path), 401, 'UNAUTHORISED');
      expectError(await h.http.get(path).set('X-Api-Key', reader.key), 403, 'FORBIDDEN');
    }
  });
});
