import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/metaverse/pending-deletions';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FIELDS = [
  'id',
  'displayName',
  'typeName',
  'typeId',
  'lastConnectorDisconnectedDate',
  'deletionEligibleDate',
  'daysUntilDeletion',
  'gracePeriod',
  'connectedSystemObjectCount',
  'status',
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
 * Metaverse objects in every pending-deletion state, as synchronisation leaves them (written with SQL):
 * Users with a 7-day grace period — one overdue, one waiting, one still joined to two connector space
 * objects — a Contractor without an eligible date, 30 waiting Groups, and objects that are not pending.
 */
describe('pending deletions (/api/v1/metaverse/pending-deletions)', () => {
  let h: WebHarness;
  let db: Client;
  let userType: number;
  let groupType: number;
  let contractorType: number;
  const mvo: Record<string, string> = {};

  const get = (path: string, query: Record<string, string | number> = {}, key = h.adminKey) =>
    h.http.get(path).query(query).set('X-Api-Key', key);
  const sql = async (text: string, params: unknown[] = []) => (await db.query(text, params)).rows;
  const pendingIds = async () =>
    (await sql(`SELECT id FROM metaverse_object WHERE last_connector_disconnected_date IS NOT NULL ORDER BY id`)).map(
      (r) => r.id as string,
    );

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    [{ id: userType }] = await sql(
      `UPDATE metaverse_object_type SET deletion_grace_period_seconds = 604800 WHERE name = 'User' RETURNING id`,
    );
    [{ id: groupType }] = await sql(
      `UPDATE metaverse_object_type SET deletion_grace_period_seconds = 90000 WHERE name = 'Group' RETURNING id`,
    );
    [{ id: contractorType }] = await sql(`INSERT INTO metaverse_object_type (name) VALUES ('Contractor') RETURNING id`);
    const insert = async (name: string, type: number, disconnected: string | null, eligible: string | null) => {
      [{ id: mvo[name] }] = await sql(
        `INSERT INTO metaverse_object (type_id, origin, display_name, last_connector_disconnected_date, deletion_eligible_date)
        VALUES ($1, 'Projected', $2, now() + $3::interval, now() + $4::interval) RETURNING id`,
        [type, name, disconnected, eligible],
      );
    };
    // daysUntilDeletion is rounded down: 3 days and an hour overdue is -4, 6 days and an hour to go is 6.
    await insert('Overdue', userType, '-10 days', '-3 days -1 hour');
    await insert('Waiting', userType, '-1 day', '6 days 1 hour');
    await insert('Deprovisioning', userType, '-1 hour', '7 days');
    await insert('No date', contractorType, '-2 days', null);
    await insert('Joined', userType, null, null);
    await insert('Rejoined', userType, null, '3 days');
    await sql(
      `INSERT INTO metaverse_object (type_id, origin, display_name, last_connector_disconnected_date, deletion_eligible_date)
               SELECT $1, 'Projected', 'Group ' || g, now() - interval '1 hour', now() + interval '1 day' FROM generate_series(1, 30) g`,
      [groupType],
    );
    const [{ id: system }] = await sql(`INSERT INTO connected_system (name, connector_type) VALUES ('Directory', 'File') RETURNING id`);
    const [{ id: csType }] = await sql(
      `INSERT INTO connected_system_object_type (connected_system_id, name) VALUES ($1, 'user') RETURNING id`,
      [system],
    );
    await sql(
      `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, status, metaverse_object_id)
               VALUES ($1, $2, 'dep-1', 'Normal', $3), ($1, $2, 'dep-2', 'Normal', $3), ($1, $2, 'joined', 'Normal', $4)`,
      [system, csType, mvo.Deprovisioning, mvo.Joined],
    );
    await sql(
      `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type)
               SELECT connected_system_id, id, 'Delete' FROM connected_system_object WHERE metaverse_object_id = $1`,
      [mvo.Deprovisioning],
    );
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  it('is routed beside /metaverse/objects/{id}, not taken for an object id', async () => {
    await get(BASE).expect(200);
    await get(`${BASE}/count`).expect(200);
    await get(`${BASE}/summary`).expect(200);
    expectError(await get('/api/v1/metaverse/objects/pending-deletions'), 400, 'VALIDATION_ERROR');
  });

  describe('list', () => {
    it('answers the paginated envelope of spec 2.1 with the defaults', async () => {
      const res = await get(BASE).expect(200);
      expect(Object.keys(res.body).sort()).toEqual([
        'hasNextPage',
        'hasPreviousPage',
        'items',
        'page',
        'pageSize',
        'totalCount',
        'totalPages',
      ]);
      expect(res.body).toMatchObject({ totalCount: 34, page: 1, pageSize: 25, totalPages: 2, hasNextPage: true, hasPreviousPage: false });
      expect(res.body.items).toHaveLength(25);
      for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual([...FIELDS].sort());
    });

    it('pages through every pending deletion exactly once, in id order across object types', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const res = await get(BASE, { page, pageSize: 10 }).expect(200);
        expect(res.body).toMatchObject({
          totalCount: 34,
          page,
          pageSize: 10,
          totalPages: 4,
          hasNextPage: page < 4,
          hasPreviousPage: page > 1,
        });
        seen.push(...res.body.items.map((i: { id: string }) => i.id));
      }
      expect(seen).toEqual(await pendingIds());
      expect(seen).not.toContain(mvo.Joined);
      expect(seen).not.toContain(mvo.Rejoined);
      expect((await get(BASE, { page: 5, pageSize: 10 }).expect(200)).body).toMatchObject({
        items: [],
        totalCount: 34,
        hasNextPage: false,
        hasPreviousPage: true,
      });
    });

    it('reports each state of spec 3.4 with its dates, days and grace period', async () => {
      const items = new Map<string, any>((await get(BASE, { pageSize: 100 }).expect(200)).body.items.map((i: { id: string }) => [i.id, i]));
      expect(items.get(mvo.Overdue)).toEqual({
        id: mvo.Overdue,
        displayName: 'Overdue',
        typeName: 'User',
        typeId: userType,
        lastConnectorDisconnectedDate: expect.stringMatching(ISO),
        deletionEligibleDate: expect.stringMatching(ISO),
        daysUntilDeletion: -4,
        gracePeriod: '7.00:00:00',
        connectedSystemObjectCount: 0,
        status: 'ReadyForDeletion',
      });
      expect(Date.parse(items.get(mvo.Overdue).deletionEligibleDate)).toBeLessThan(Date.now());
      expect(items.get(mvo.Waiting)).toMatchObject({
        daysUntilDeletion: 6,
        gracePeriod: '7.00:00:00',
        connectedSystemObjectCount: 0,
        status: 'AwaitingGracePeriod',
      });
      expect(items.get(mvo.Deprovisioning)).toMatchObject({
        connectedSystemObjectCount: 2,
        status: 'Deprovisioning',
        daysUntilDeletion: 6,
      });
      expect(items.get(mvo['No date'])).toMatchObject({
        typeName: 'Contractor',
        typeId: contractorType,
        deletionEligibleDate: null,
        daysUntilDeletion: null,
        gracePeriod: null,
        connectedSystemObjectCount: 0,
        status: 'ReadyForDeletion',
      });
      const groups = [...items.values()].filter((i) => i.typeName === 'Group');
      expect(groups).toHaveLength(30);
      for (const g of groups)
        expect(g).toMatchObject({ typeId: groupType, gracePeriod: '1.01:00:00', daysUntilDeletion: 0, status: 'AwaitingGracePeriod' });
    });

    it('filters by object type', async () => {
      const users = (await get(BASE, { objectTypeId: userType }).expect(200)).body;
      expect(users).toMatchObject({ totalCount: 3, totalPages: 1, hasNextPage: false });
      expect(users.items.map((i: { id: string }) => i.id)).toEqual([mvo.Overdue, mvo.Waiting, mvo.Deprovisioning].sort());
      const groups = await get(BASE, { objectTypeId: groupType, pageSize: 20, page: 2 }).expect(200);
      expect(groups.body).toMatchObject({ totalCount: 30, totalPages: 2, hasPreviousPage: true });
      expect(groups.body.items).toHaveLength(10);
      const [{ id: empty }] = await sql(`INSERT INTO metaverse_object_type (name) VALUES ('Device') RETURNING id`);
      expect((await get(BASE, { objectTypeId: empty }).expect(200)).body).toMatchObject({ items: [], totalCount: 0, totalPages: 0 });
    });
  });

  describe('count and summary', () => {
    it('counts as a bare integer, optionally of one type', async () => {
      const all = await get(`${BASE}/count`).expect(200);
      expect(all.headers['content-type']).toMatch(/application\/json/);
      expect(all.body).toBe(34);
      expect(all.text).toBe('34');
      expect((await get(`${BASE}/count`, { objectTypeId: userType }).expect(200)).body).toBe(3);
      expect((await get(`${BASE}/count`, { objectTypeId: contractorType }).expect(200)).body).toBe(1);
    });

    it('summarises by status', async () => {
      expect((await get(`${BASE}/summary`).expect(200)).body).toEqual({
        totalCount: 34,
        deprovisioningCount: 1,
        awaitingGracePeriodCount: 31,
        readyForDeletionCount: 2,
      });
    });

    it('follows the objects: a rejoin leaves, the grace period runs out', async () => {
      await sql(`UPDATE metaverse_object SET last_connector_disconnected_date = NULL, deletion_eligible_date = NULL WHERE id = $1`, [
        mvo.Waiting,
      ]);
      await sql(`UPDATE metaverse_object SET deletion_eligible_date = now() - interval '1 minute' WHERE type_id = $1`, [groupType]);
      expect((await get(`${BASE}/summary`).expect(200)).body).toEqual({
        totalCount: 33,
        deprovisioningCount: 1,
        awaitingGracePeriodCount: 0,
        readyForDeletionCount: 32,
      });
      expect((await get(`${BASE}/count`).expect(200)).body).toBe(33);
      const group = (await get(BASE, { objectTypeId: groupType, pageSize: 1 }).expect(200)).body.items[0];
      expect(group).toMatchObject({ status: 'ReadyForDeletion', daysUntilDeletion: -1 });
    });
  });

  it('marks the metaverse object detail as pending deletion from the disconnection date', async () => {
    const detail = async (id: string) => (await get(`/api/v1/metaverse/objects/${id}`).expect(200)).body;
    expect(await detail(mvo.Overdue)).toMatchObject({
      isPendingDeletion: true,
      lastConnectorDisconnectedDate: expect.stringMatching(ISO),
      deletionEligibleDate: expect.stringMatching(ISO),
    });
    expect(await detail(mvo['No date'])).toMatchObject({
      isPendingDeletion: true,
      lastConnectorDisconnectedDate: expect.stringMatching(ISO),
      deletionEligibleDate: null,
    });
    expect(await detail(mvo.Joined)).toMatchObject({
      isPendingDeletion: false,
      lastConnectorDisconnectedDate: null,
      deletionEligibleDate: null,
    });
    expect(await detail(mvo.Rejoined)).toMatchObject({ isPendingDeletion: false, lastConnectorDisconnectedDate: null });
  });

  it.each<[string, string, Record<string, string>, string]>([
    ['objectTypeId 0', BASE, { objectTypeId: '0' }, 'objectTypeId'],
    ['an objectTypeId that is not a number', BASE, { objectTypeId: 'User' }, 'objectTypeId'],
    ['an unknown object type', BASE, { objectTypeId: '987654' }, 'objectTypeId'],
    ['an unknown object type (count)', `${BASE}/count`, { objectTypeId: '987654' }, 'objectTypeId'],
    ['pageSize 101', BASE, { pageSize: '101' }, 'pageSize'],
    ['page 0', BASE, { page: '0' }, 'page'],
    ['paging on count', `${BASE}/count`, { page: '1' }, 'page'],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_label, path, query, field) => {
    const res = await get(path, query);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.validationErrors).toHaveProperty(field);
  });

  it('needs credentials (401) and the Administrator role (403)', async () => {
    const reader = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'no roles' }).expect(201)).body;
    for (const path of [BASE, `${BASE}/count`, `${BASE}/summary`]) {
      expectError(await h.http.get(path), 401, 'UNAUTHORISED');
      expectError(await h.http.get(path).set('X-Api-Key', reader.key), 403, 'FORBIDDEN');
    }
  });
});
