import { randomUUID } from 'node:crypto';
import { CsoChangeType, InitiatedByType, MvoChangeType } from '@meridian/domain';
import { BulkSession, ChangeOrigin, ChangeRecordStore, CsoChangeRow, MvoChangeRow } from '@meridian/persistence';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { startWebApp, WebHarness } from './harness';
import { RESOURCE, ssoSettings, startIdentityProvider, TestIdentityProvider } from './oidc-provider';

const HISTORY = '/api/v1/history';
const CS_BASE = '/api/v1/synchronisation/connected-systems';
const ENVELOPE = ['items', 'page', 'pageSize', 'totalCount'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The HR system's deleted people: one a minute from 10:00 UTC on 1 March 2025. */
const T0 = Date.parse('2025-03-01T10:00:00.000Z');
const minute = (i: number) => new Date(T0 + i * 60_000);
/** The directory's deletions: one an hour from 1 April 2025. */
const T1 = Date.parse('2025-04-01T00:00:00.000Z');
/** Metaverse deletions: one an hour from 1 May 2025. */
const T2 = Date.parse('2025-05-01T00:00:00.000Z');
const hour = (base: number, i: number) => new Date(base + i * 3_600_000);

interface Res {
  status: number;
  body: any;
}

function expectError(res: Res, status: number, code: string, field?: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.timestamp).toMatch(ISO);
  if (field) expect(Object.keys(res.body.validationErrors ?? {})).toEqual([field]);
}

const SYSTEM_ORIGIN: ChangeOrigin = {
  activityId: null,
  runProfileId: null,
  initiatedByType: InitiatedByType.System,
  initiatedById: null,
  initiatedByName: 'System',
};

describe('history (/api/v1/history, object history)', () => {
  let h: WebHarness;
  let idp: TestIdentityProvider;
  let db: Client;
  let ds: DataSource;
  let hr: number;
  let ad: number;
  let empty: number;
  let person: number;
  let adUser: number;
  let fullImport: number;
  let userType: number;
  let groupType: number;
  const csAttr: Record<string, number> = {};
  const mvAttr: Record<string, number> = {};
  /** connected_system_object_id of each HR deletion, by minute. */
  const hrDeleted: string[] = [];
  const adDeleted: Record<string, string> = {};

  const get = (path: string, query: Record<string, string | number> = {}, key = h.adminKey) =>
    h.http.get(path).query(query).set('X-Api-Key', key);
  const sql = async (text: string, params: unknown[] = []) => (await db.query(text, params)).rows;
  const csoChanges = (rows: CsoChangeRow[], at: Date, origin = SYSTEM_ORIGIN) =>
    BulkSession.with(ds, (s) => new ChangeRecordStore(s).insertCsoChanges(origin, rows, at));
  const mvoChanges = (rows: MvoChangeRow[], at: Date, origin = SYSTEM_ORIGIN) =>
    BulkSession.with(ds, (s) => new ChangeRecordStore(s).insertMvoChanges(origin, rows, at));
  const deletedCso = (connectedSystemId: number, objectTypeId: number | null, externalId: string, extra: Partial<CsoChangeRow> = {}) => ({
    connectedSystemId,
    connectedSystemObjectId: randomUUID(),
    objectTypeId,
    externalId,
    displayName: `Name of ${externalId}`,
    changeType: CsoChangeType.Deleted,
    attributeChanges: null,
    ...extra,
  });

  beforeAll(async () => {
    idp = await startIdentityProvider();
    h = await startWebApp(ssoSettings(idp.issuer, { OIDC_AUDIENCE: RESOURCE }));
    ds = h.app.get(DataSource);
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    [{ id: hr }] = await sql(`INSERT INTO connected_system (name, connector_type) VALUES ('HR', 'File') RETURNING id`);
    [{ id: ad }] = await sql(`INSERT INTO connected_system (name, connector_type) VALUES ('Directory', 'File') RETURNING id`);
    [{ id: empty }] = await sql(`INSERT INTO connected_system (name, connector_type) VALUES ('Quiet', 'File') RETURNING id`);
    [{ id: person }] = await sql(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'person', true) RETURNING id`,
      [hr],
    );
    [{ id: adUser }] = await sql(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'user', true) RETURNING id`,
      [ad],
    );
    for (const name of ['employeeId', 'mail']) {
      [{ id: csAttr[name] }] = await sql(
        `INSERT INTO connected_system_attribute (object_type_id, name, type, plurality, selected) VALUES ($1, $2, 'String', 'Single', true) RETURNING id`,
        [person, name],
      );
    }
    [{ id: fullImport }] = await sql(
      `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, 'Full import', 'FullImport') RETURNING id`,
      [hr],
    );
    [{ id: userType }] = await sql(`SELECT id FROM metaverse_object_type WHERE name = 'User'`);
    [{ id: groupType }] = await sql(`SELECT id FROM metaverse_object_type WHERE name = 'Group'`);
    for (const name of ['Display Name', 'Email', 'Department'])
      [{ id: mvAttr[name] }] = await sql(`SELECT id FROM metaverse_attribute WHERE name = $1`, [name]);

    // HR: 120 people deleted a minute apart; the first six kept the type's name at the time ("Employee").
    for (let i = 0; i < 120; i++) {
      const row = deletedCso(hr, person, `EMP-${String(i + 1).padStart(4, '0')}`, i < 6 ? { objectTypeName: 'Employee' } : {});
      hrDeleted.push(row.connectedSystemObjectId);
      await csoChanges([row], minute(i));
    }
    // The directory: names with LIKE wildcards, and a system name recorded with one deletion.
    const adNames = ['CN=50%_off', 'cn=ada', 'CN=Ada Lovelace', 'CN=adb', 'x_y', 'back\\slash'];
    for (const [j, externalId] of adNames.entries()) {
      const row = deletedCso(ad, adUser, externalId, j === 0 ? { connectedSystemName: 'Directory (before the rename)' } : {});
      adDeleted[externalId] = row.connectedSystemObjectId;
      await csoChanges([row], hour(T1, j + 1));
    }
    // Written by SQL with microseconds, 400 µs after T1: still "at" T1 to the millisecond.
    adDeleted.micro = randomUUID();
    await sql(
      `INSERT INTO connected_system_object_change (id, change_time, connected_system_id, connected_system_object_id, object_type_id,
         external_id, display_name, change_type, initiated_by_type, initiated_by_name)
       VALUES ($1, '2025-04-01T00:00:00.000400Z', $2, $3, $4, 'CN=micro', 'Micro', $5, $6, 'System')`,
      ['0195ee8c-0000-7000-8000-000000000001', ad, adDeleted.micro, adUser, CsoChangeType.Deleted, InitiatedByType.System],
    );
    // A system deleted with its objects, whose deletions keep their names; and an object type gone since.
    await csoChanges(
      [
        deletedCso(9999, 8888, 'GONE-1', { objectTypeName: 'contact', connectedSystemName: 'Old CRM' }),
        deletedCso(ad, 7777, 'CN=typeless'),
      ],
      hour(T1, 10),
    );
    // Two deletions in the same millisecond: the later id is listed first.
    const twins = [deletedCso(ad, adUser, 'CN=twin-first'), deletedCso(ad, adUser, 'CN=twin-second')];
    adDeleted.twinFirst = twins[0].connectedSystemObjectId;
    adDeleted.twinSecond = twins[1].connectedSystemObjectId;
    await csoChanges(twins, hour(T1, 20));
    // Not deletions: never listed as deleted, but counted.
    await csoChanges(
      [
        { ...deletedCso(hr, person, 'EMP-0001'), changeType: CsoChangeType.Obsoleted },
        {
          ...deletedCso(hr, person, 'EMP-9999'),
          changeType: CsoChangeType.Added,
          attributeChanges: [{ a: csAttr.employeeId, o: [], n: ['EMP-9999'] }],
        },
      ],
      minute(5),
    );

    // The metaverse: deletions of Users and Groups, a type gone since, and records of other kinds.
    const deletedMvo = (objectTypeId: number, displayName: string, objectTypeName: string | null = null): MvoChangeRow => ({
      metaverseObjectId: randomUUID(),
      objectTypeId,
      displayName,
      changeType: MvoChangeType.Deleted,
      attributeChanges: null,
      connectedSystemId: null,
      connectedSystemObjectId: null,
      objectTypeName,
    });
    const mvoNames: Array<[number, string, string | null]> = [
      [userType, 'Ada Lovelace', null],
      [userType, 'ada byron', null],
      [userType, '100% Human', 'Person'],
      [userType, 'under_score', null],
      [userType, 'Grace Hopper', null],
      [groupType, 'Admins', null],
      [groupType, 'Ada fans', null],
      [6666, 'Contractor Ada', 'Contractor'],
    ];
    for (const [k, [typeId, name, typeName]] of mvoNames.entries()) await mvoChanges([deletedMvo(typeId, name, typeName)], hour(T2, k));
    await mvoChanges([{ ...deletedMvo(userType, 'Ada Projected'), changeType: MvoChangeType.Projected }], hour(T2, 3));
  });

  afterAll(async () => {
    await db?.end();
    await h?.close();
    await idp?.close();
  });

  describe('GET /history/deleted-objects/cso', () => {
    const list = (query: Record<string, string | number> = {}) => get(`${HISTORY}/deleted-objects/cso`, query);

    it('answers exactly the four-field envelope with the defaults (page 1, pageSize 50), newest first', async () => {
      const res = await list().expect(200);
      expect(Object.keys(res.body).sort()).toEqual(ENVELOPE);
      expect(res.body).toMatchObject({ page: 1, pageSize: 50, totalCount: 131 });
      expect(res.body.items).toHaveLength(50);
      const times = res.body.items.map((i: any) => Date.parse(i.changeTime));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      // The twins share their millisecond: the later record (id) first.
      expect(res.body.items.slice(0, 2).map((i: any) => i.id)).toEqual([adDeleted.twinSecond, adDeleted.twinFirst]);
    });

    it('gives each item the fields of spec 2.13, with recorded names before current ones', async () => {
      const res = await list({ connectedSystemId: ad, pageSize: 1000 }).expect(200);
      const byExternalId = new Map(res.body.items.map((i: any) => [i.externalId, i]));
      expect(byExternalId.get('CN=50%_off')).toEqual({
        id: adDeleted['CN=50%_off'],
        externalId: 'CN=50%_off',
        displayName: 'Name of CN=50%_off',
        objectTypeName: 'user',
        connectedSystemId: ad,
        connectedSystemName: 'Directory (before the rename)',
        changeTime: hour(T1, 1).toISOString(),
        initiatedByType: 'System',
        initiatedByName: 'System',
      });
      expect(byExternalId.get('cn=ada')).toMatchObject({ objectTypeName: 'user', connectedSystemName: 'Directory' });
      expect(byExternalId.get('CN=typeless')).toMatchObject({ objectTypeName: null, connectedSystemName: 'Directory' });
      const gone = (await list({ connectedSystemId: 9999 }).expect(200)).body;
      expect(gone.items).toEqual([
        expect.objectContaining({
          externalId: 'GONE-1',
          objectTypeName: 'contact',
          connectedSystemId: 9999,
          connectedSystemName: 'Old CRM',
        }),
      ]);
      const hrOld = (await list({ connectedSystemId: hr, externalIdSearch: 'EMP-000' }).expect(200)).body;
      expect(hrOld.items.map((i: any) => [i.externalId, i.objectTypeName])).toEqual([
        ['EMP-0009', 'person'],
        ['EMP-0008', 'person'],
        ['EMP-0007', 'person'],
        ['EMP-0006', 'Employee'],
        ['EMP-0005', 'Employee'],
        ['EMP-0004', 'Employee'],
        ['EMP-0003', 'Employee'],
        ['EMP-0002', 'Employee'],
        ['EMP-0001', 'Employee'],
      ]);
    });

    it('filters by connected system', async () => {
      expect((await list({ connectedSystemId: hr }).expect(200)).body.totalCount).toBe(120);
      expect((await list({ connectedSystemId: ad }).expect(200)).body.totalCount).toBe(10);
      expect((await list({ connectedSystemId: empty }).expect(200)).body).toEqual({ items: [], totalCount: 0, page: 1, pageSize: 50 });
    });

    it('matches the external ID by contains, ignoring case, with %, _ and \\ literal', async () => {
      const ids = async (search: string) =>
        ((await list({ externalIdSearch: search, pageSize: 1000 }).expect(200)).body.items as any[]).map((i) => i.externalId).sort();
      expect(await ids('ADA')).toEqual(['CN=Ada Lovelace', 'cn=ada']);
      expect(await ids('%')).toEqual(['CN=50%_off']);
      expect(await ids('_')).toEqual(['CN=50%_off', 'x_y']);
      expect(await ids('%_')).toEqual(['CN=50%_off']);
      expect(await ids('\\')).toEqual(['back\\slash']);
      expect(await ids('a_b')).toEqual([]);
      expect(await ids('emp-012')).toEqual(['EMP-0120']);
    });

    it('bounds the time window inclusively at both ends, in UTC', async () => {
      const window = { connectedSystemId: hr, fromDate: minute(10).toISOString(), toDate: minute(20).toISOString() };
      const res = await list(window).expect(200);
      expect(res.body.totalCount).toBe(11);
      expect(res.body.items.map((i: any) => i.changeTime)).toEqual(Array.from({ length: 11 }, (_, k) => minute(20 - k).toISOString()));
      // A datetime without an offset is UTC; an offset is honoured.
      const same = await list({ connectedSystemId: hr, fromDate: '2025-03-01T12:10:00+02:00', toDate: '2025-03-01T10:20:00' }).expect(200);
      expect(same.body.totalCount).toBe(11);
      // One millisecond inside either bound leaves the boundary record out.
      const inside = {
        connectedSystemId: hr,
        fromDate: new Date(minute(10).getTime() + 1).toISOString(),
        toDate: new Date(minute(20).getTime() - 1).toISOString(),
      };
      expect((await list(inside).expect(200)).body.totalCount).toBe(9);
      expect((await list({ fromDate: minute(119).toISOString(), toDate: minute(119).toISOString() }).expect(200)).body.items).toEqual([
        expect.objectContaining({ id: hrDeleted[119], externalId: 'EMP-0120' }),
      ]);
    });

    it('counts a record written with microseconds as within its millisecond', async () => {
      const at = new Date(T1).toISOString();
      const res = await list({ fromDate: at, toDate: at }).expect(200);
      expect(res.body.items.map((i: any) => [i.id, i.changeTime])).toEqual([[adDeleted.micro, at]]);
      expect((await list({ fromDate: new Date(T1 + 1).toISOString(), toDate: hour(T1, 1).toISOString() }).expect(200)).body.items).toEqual([
        expect.objectContaining({ id: adDeleted['CN=50%_off'] }),
      ]);
    });

    it('combines every filter (AND)', async () => {
      const res = await list({
        connectedSystemId: hr,
        externalIdSearch: 'emp-011',
        fromDate: minute(100).toISOString(),
        toDate: minute(110).toISOString(),
      }).expect(200);
      expect(res.body.items.map((i: any) => i.externalId)).toEqual(['EMP-0111', 'EMP-0110']);
      expect(res.body.totalCount).toBe(2);
      expect((await list({ connectedSystemId: ad, externalIdSearch: 'EMP' }).expect(200)).body.totalCount).toBe(0);
    });

    it('pages: page 2 of 3, the last partial page, and a page beyond the end', async () => {
      const page2 = (await list({ connectedSystemId: hr, page: 2 }).expect(200)).body;
      expect(page2).toMatchObject({ page: 2, pageSize: 50, totalCount: 120 });
      expect(page2.items.map((i: any) => i.id)).toEqual(hrDeleted.slice(20, 70).reverse());
      const page3 = (await list({ connectedSystemId: hr, page: 3 }).expect(200)).body;
      expect(page3.items.map((i: any) => i.id)).toEqual(hrDeleted.slice(0, 20).reverse());
      expect(page3.totalCount).toBe(120);
      expect((await list({ connectedSystemId: hr, page: 4 }).expect(200)).body).toEqual({
        items: [],
        totalCount: 120,
        page: 4,
        pageSize: 50,
      });
      const big = (await list({ connectedSystemId: hr, pageSize: 1000 }).expect(200)).body;
      expect(big.items).toHaveLength(120);
      expect(big.pageSize).toBe(1000);
      const small = (await list({ connectedSystemId: hr, page: 7, pageSize: 1 }).expect(200)).body;
      expect(small).toEqual({ items: [expect.objectContaining({ id: hrDeleted[113] })], totalCount: 120, page: 7, pageSize: 1 });
    });

    it.each([
      [{ fromDate: 'yesterday' }, 'fromDate'],
      [{ toDate: '2025-02-30T00:00:00Z' }, 'toDate'],
      [{ fromDate: '2025-03-02T00:00:00Z', toDate: '2025-03-01T00:00:00Z' }, 'fromDate'],
      [{ pageSize: 1001 }, 'pageSize'],
      [{ pageSize: 0 }, 'pageSize'],
      [{ page: 0 }, 'page'],
      [{ page: 'two' }, 'page'],
      [{ connectedSystemId: 'abc' }, 'connectedSystemId'],
      [{ connectedSystemId: '1.5' }, 'connectedSystemId'],
      [{ connectedSystemId: 0 }, 'connectedSystemId'],
    ])('refuses %p with 400 VALIDATION_ERROR', async (query, field) => {
      expectError(await list(query as Record<string, string | number>), 400, 'VALIDATION_ERROR', field);
    });
  });

  describe('GET /history/deleted-objects/mvo', () => {
    const list = (query: Record<string, string | number> = {}) => get(`${HISTORY}/deleted-objects/mvo`, query);
    const names = async (query: Record<string, string | number>) =>
      ((await list(query).expect(200)).body.items as any[]).map((i) => i.displayName);

    it('lists Deleted records only, newest first, in the four-field envelope with the defaults', async () => {
      const res = await list({ toDate: hour(T2, 100).toISOString() }).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(ENVELOPE);
      expect(res.body).toMatchObject({ page: 1, pageSize: 50, totalCount: 8 });
      expect(res.body.items.map((i: any) => i.displayName)).toEqual([
        'Contractor Ada',
        'Ada fans',
        'Admins',
        'Grace Hopper',
        'under_score',
        '100% Human',
        'ada byron',
        'Ada Lovelace',
      ]);
      expect(res.body.items[0]).toEqual({
        id: expect.any(String),
        displayName: 'Contractor Ada',
        objectTypeName: 'Contractor',
        objectTypeId: 6666,
        changeTime: hour(T2, 7).toISOString(),
        initiatedByType: 'System',
        initiatedByName: 'System',
      });
      expect(res.body.items.find((i: any) => i.displayName === '100% Human').objectTypeName).toBe('Person');
      expect(res.body.items.find((i: any) => i.displayName === 'Ada fans')).toMatchObject({
        objectTypeName: 'Group',
        objectTypeId: groupType,
      });
      expect(res.body.items.find((i: any) => i.displayName === 'Ada Lovelace')).toMatchObject({
        objectTypeName: 'User',
        objectTypeId: userType,
      });
    });

    it('filters by object type, display name (contains, ignoring case, literal wildcards) and time, alone and combined', async () => {
      const before = { toDate: hour(T2, 100).toISOString() };
      expect(await names({ ...before, objectTypeId: groupType })).toEqual(['Ada fans', 'Admins']);
      expect(await names({ ...before, displayNameSearch: 'ADA' })).toEqual(['Contractor Ada', 'Ada fans', 'ada byron', 'Ada Lovelace']);
      expect(await names({ ...before, displayNameSearch: '%' })).toEqual(['100% Human']);
      expect(await names({ ...before, displayNameSearch: '_' })).toEqual(['under_score']);
      expect(await names({ fromDate: hour(T2, 1).toISOString(), toDate: hour(T2, 3).toISOString() })).toEqual([
        'under_score',
        '100% Human',
        'ada byron',
      ]);
      expect(
        await names({
          objectTypeId: userType,
          displayNameSearch: 'ada',
          fromDate: hour(T2, 1).toISOString(),
          toDate: hour(T2, 6).toISOString(),
        }),
      ).toEqual(['ada byron']);
      expect((await list({ ...before, objectTypeId: userType, pageSize: 2, page: 2 }).expect(200)).body).toEqual({
        items: [expect.objectContaining({ displayName: '100% Human' }), expect.objectContaining({ displayName: 'ada byron' })],
        totalCount: 5,
        page: 2,
        pageSize: 2,
      });
      expect((await list({ ...before, objectTypeId: userType, pageSize: 2, page: 4 }).expect(200)).body).toEqual({
        items: [],
        totalCount: 5,
        page: 4,
        pageSize: 2,
      });
    });

    it.each([
      [{ fromDate: '2025-13-01' }, 'fromDate'],
      [{ toDate: 'not a date' }, 'toDate'],
      [{ fromDate: '2025-05-02T00:00:00Z', toDate: '2025-05-01T23:59:59.999Z' }, 'fromDate'],
      [{ pageSize: 1001 }, 'pageSize'],
      [{ pageSize: 0 }, 'pageSize'],
      [{ page: 0 }, 'page'],
      [{ objectTypeId: 'User' }, 'objectTypeId'],
      [{ objectTypeId: '2.5' }, 'objectTypeId'],
    ])('refuses %p with 400 VALIDATION_ERROR', async (query, field) => {
      expectError(await list(query as Record<string, string | number>), 400, 'VALIDATION_ERROR', field);
    });
  });

  describe('GET /history/connected-systems/{id}/count', () => {
    it('counts every change record of the system', async () => {
      expect((await get(`${HISTORY}/connected-systems/${hr}/count`).expect(200)).body).toEqual({
        connectedSystemId: hr,
        connectedSystemName: 'HR',
        changeRecordCount: 122,
      });
      expect((await get(`${HISTORY}/connected-systems/${ad}/count`).expect(200)).body).toEqual({
        connectedSystemId: ad,
        connectedSystemName: 'Directory',
        changeRecordCount: 10,
      });
      expect((await get(`${HISTORY}/connected-systems/${empty}/count`).expect(200)).body).toEqual({
        connectedSystemId: empty,
        connectedSystemName: 'Quiet',
        changeRecordCount: 0,
      });
    });

    it('answers 404 for an unknown system and 400 for an id that is not a positive integer', async () => {
      expectError(await get(`${HISTORY}/connected-systems/999999/count`), 404, 'NOT_FOUND');
      expectError(await get(`${HISTORY}/connected-systems/abc/count`), 400, 'VALIDATION_ERROR', 'connectedSystemId');
      expectError(await get(`${HISTORY}/connected-systems/1.5/count`), 400, 'VALIDATION_ERROR', 'connectedSystemId');
    });
  });

  describe("an object's history", () => {
    let ada: string;
    let adaCso: string;
    let otherCso: string;
    let activityId: string;
    const mvoHistory = (id: string, query: Record<string, string | number> = {}) => get(`/api/v1/metaverse/objects/${id}/history`, query);
    const csoHistory = (system: number | string, id: string, query: Record<string, string | number> = {}) =>
      get(`${CS_BASE}/${system}/connector-space/${id}/history`, query);

    beforeAll(async () => {
      [{ id: ada }] = await sql(
        `INSERT INTO metaverse_object (type_id, origin, display_name) VALUES ($1, 'Projected', 'Ada Lovelace') RETURNING id`,
        [userType],
      );
      [{ id: adaCso }] = await sql(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name, metaverse_object_id)
         VALUES ($1, $2, 'EMP-7001', 'Ada Lovelace', $3) RETURNING id`,
        [hr, person, ada],
      );
      [{ id: otherCso }] = await sql(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id) VALUES ($1, $2, 'CN=other') RETURNING id`,
        [ad, adUser],
      );
      activityId = randomUUID();
      const run: ChangeOrigin = {
        activityId,
        runProfileId: fullImport,
        initiatedByType: InitiatedByType.User,
        initiatedById: null,
        initiatedByName: 'Grace',
      };
      const gone: ChangeOrigin = { ...run, runProfileId: 4242 };
      const at = (i: number) => new Date(Date.parse('2025-06-01T08:00:00.000Z') + i * 1000);
      // Connector space: Added, two Updates (one by a run profile deleted since), Obsoleted.
      const cso = (changeType: CsoChangeType, attributeChanges: CsoChangeRow['attributeChanges'], displayName = 'Ada Lovelace') => ({
        connectedSystemId: hr,
        connectedSystemObjectId: adaCso,
        objectTypeId: person,
        externalId: 'EMP-7001',
        displayName,
        changeType,
        attributeChanges,
      });
      await csoChanges(
        [
          cso(CsoChangeType.Added, [
            { a: csAttr.employeeId, o: [], n: ['EMP-7001'] },
            { a: csAttr.mail, o: [], n: ['ada@example.org'] },
          ]),
        ],
        at(0),
        run,
      );
      await csoChanges([cso(CsoChangeType.Updated, [{ a: csAttr.mail, o: ['ada@example.org'], n: ['ada@lovelace.example'] }])], at(1), run);
      await csoChanges([cso(CsoChangeType.Updated, [{ a: 5555, o: ['x'], n: [] }], 'Ada King')], at(2), gone);
      await csoChanges([cso(CsoChangeType.Obsoleted, null, 'Ada King')], at(3), run);
      // Metaverse: Projected from HR, joined in the directory, attribute flow, disconnected.
      const mvo = (changeType: MvoChangeType, attributeChanges: MvoChangeRow['attributeChanges'], connectedSystemId: number | null) => ({
        metaverseObjectId: ada,
        objectTypeId: userType,
        displayName: 'Ada Lovelace',
        changeType,
        attributeChanges,
        connectedSystemId,
        connectedSystemObjectId: connectedSystemId === hr ? adaCso : connectedSystemId === null ? null : otherCso,
      });
      await mvoChanges(
        [
          mvo(
            MvoChangeType.Projected,
            [
              { a: mvAttr['Display Name'], o: [], n: ['Ada Lovelace'], s: hr },
              { a: mvAttr.Email, o: [], n: ['ada@example.org'], s: hr },
            ],
            hr,
          ),
        ],
        at(0),
        run,
      );
      await mvoChanges([mvo(MvoChangeType.Joined, null, ad)], at(1), run);
      await mvoChanges(
        [
          mvo(
            MvoChangeType.AttributeFlow,
            [
              { a: mvAttr.Email, o: ['ada@example.org'], n: ['ada@lovelace.example'], s: hr },
              { a: mvAttr.Department, o: ['Maths'], n: [], s: 9876 },
              { a: 54321, o: [], n: ['kept'], s: null },
            ],
            hr,
          ),
        ],
        at(2),
        gone,
      );
      await mvoChanges([mvo(MvoChangeType.Disconnected, null, 9999)], at(3), run);
    });

    it("pages a metaverse object's records newest first with attribute, system and run profile names resolved", async () => {
      const first = (await mvoHistory(ada, { pageSize: 3 }).expect(200)).body;
      expect(Object.keys(first).sort()).toEqual(ENVELOPE);
      expect(first).toMatchObject({ totalCount: 4, page: 1, pageSize: 3 });
      expect(first.items.map((i: any) => i.changeType)).toEqual(['Disconnected', 'AttributeFlow', 'Joined']);
      expect(first.items[0]).toEqual({
        id: expect.any(String),
        changeType: 'Disconnected',
        changeTime: '2025-06-01T08:00:03.000Z',
        attributeChanges: [],
        connectedSystemId: 9999,
        connectedSystemName: null,
        connectedSystemObjectId: otherCso,
        activityId,
        runProfileId: fullImport,
        runProfileName: 'Full import',
        initiatedByType: 'User',
        initiatedByName: 'Grace',
      });
      expect(first.items[1]).toMatchObject({
        connectedSystemId: hr,
        connectedSystemName: 'HR',
        runProfileId: 4242,
        runProfileName: null,
        attributeChanges: [
          {
            attributeId: mvAttr.Email,
            attributeName: 'Email',
            oldValues: ['ada@example.org'],
            newValues: ['ada@lovelace.example'],
            contributedBySystemId: hr,
            contributedBySystemName: 'HR',
          },
          {
            attributeId: mvAttr.Department,
            attributeName: 'Department',
            oldValues: ['Maths'],
            newValues: [],
            contributedBySystemId: 9876,
            contributedBySystemName: null,
          },
          {
            attributeId: 54321,
            attributeName: null,
            oldValues: [],
            newValues: ['kept'],
            contributedBySystemId: null,
            contributedBySystemName: null,
          },
        ],
      });
      expect(first.items[2]).toMatchObject({ changeType: 'Joined', connectedSystemName: 'Directory', connectedSystemObjectId: otherCso });
      const last = (await mvoHistory(ada, { pageSize: 3, page: 2 }).expect(200)).body;
      expect(last).toMatchObject({ totalCount: 4, page: 2, pageSize: 3 });
      expect(last.items).toEqual([
        expect.objectContaining({
          changeType: 'Projected',
          changeTime: '2025-06-01T08:00:00.000Z',
          attributeChanges: [
            expect.objectContaining({ attributeName: 'Display Name', newValues: ['Ada Lovelace'], contributedBySystemName: 'HR' }),
            expect.objectContaining({ attributeName: 'Email', newValues: ['ada@example.org'] }),
          ],
        }),
      ]);
      expect((await mvoHistory(ada, { page: 3, pageSize: 3 }).expect(200)).body).toEqual({
        items: [],
        totalCount: 4,
        page: 3,
        pageSize: 3,
      });
      expect((await mvoHistory(ada).expect(200)).body).toMatchObject({ page: 1, pageSize: 50, totalCount: 4 });
    });

    it("pages a connector space object's records newest first with its attribute names", async () => {
      const first = (await csoHistory(hr, adaCso, { pageSize: 2 }).expect(200)).body;
      expect(first).toMatchObject({ totalCount: 4, page: 1, pageSize: 2 });
      expect(first.items).toEqual([
        {
          id: expect.any(String),
          changeType: 'Obsoleted',
          changeTime: '2025-06-01T08:00:03.000Z',
          attributeChanges: [],
          connectedSystemId: hr,
          connectedSystemName: 'HR',
          externalId: 'EMP-7001',
          displayName: 'Ada King',
          activityId,
          runProfileId: fullImport,
          runProfileName: 'Full import',
          initiatedByType: 'User',
          initiatedByName: 'Grace',
        },
        expect.objectContaining({
          changeType: 'Updated',
          runProfileId: 4242,
          runProfileName: null,
          attributeChanges: [{ attributeId: 5555, attributeName: null, oldValues: ['x'], newValues: [] }],
        }),
      ]);
      const second = (await csoHistory(hr, adaCso, { pageSize: 2, page: 2 }).expect(200)).body;
      expect(second.items.map((i: any) => [i.changeType, i.attributeChanges])).toEqual([
        [
          'Updated',
          [{ attributeId: csAttr.mail, attributeName: 'mail', oldValues: ['ada@example.org'], newValues: ['ada@lovelace.example'] }],
        ],
        [
          'Added',
          [
            { attributeId: csAttr.employeeId, attributeName: 'employeeId', oldValues: [], newValues: ['EMP-7001'] },
            { attributeId: csAttr.mail, attributeName: 'mail', oldValues: [], newValues: ['ada@example.org'] },
          ],
        ],
      ]);
      expect((await csoHistory(hr, adaCso).expect(200)).body).toMatchObject({ page: 1, pageSize: 50, totalCount: 4 });
    });

    it('answers an existing object without records with an empty page', async () => {
      expect((await csoHistory(ad, otherCso).expect(200)).body).toEqual({ items: [], totalCount: 0, page: 1, pageSize: 50 });
    });

    it('keeps the history of deleted objects readable', async () => {
      const deleted = (await get(`${HISTORY}/deleted-objects/mvo`, { displayNameSearch: 'Grace Hopper' }).expect(200)).body.items[0];
      const res = (await mvoHistory(deleted.id).expect(200)).body;
      expect(res).toEqual({
        items: [
          expect.objectContaining({
            changeType: 'Deleted',
            changeTime: deleted.changeTime,
            attributeChanges: [],
            initiatedByName: 'System',
          }),
        ],
        totalCount: 1,
        page: 1,
        pageSize: 50,
      });
      const cso = (await csoHistory(hr, hrDeleted[0]).expect(200)).body;
      expect(cso.items).toEqual([
        expect.objectContaining({
          changeType: 'Deleted',
          externalId: 'EMP-0001',
          displayName: 'Name of EMP-0001',
          connectedSystemName: 'HR',
        }),
      ]);
    });

    it('answers 404 for an object that neither exists nor has records, and 400 for malformed ids or paging', async () => {
      expectError(await mvoHistory(randomUUID()), 404, 'NOT_FOUND');
      expectError(await csoHistory(hr, randomUUID()), 404, 'NOT_FOUND');
      // The directory's object under HR: it exists, but not in this system.
      expectError(await csoHistory(hr, otherCso), 404, 'NOT_FOUND');
      expectError(await csoHistory(999999, adaCso), 404, 'NOT_FOUND');
      expectError(await mvoHistory('not-a-uuid'), 400, 'VALIDATION_ERROR', 'id');
      expectError(await csoHistory(hr, 'not-a-uuid'), 400, 'VALIDATION_ERROR', 'objectId');
      expectError(await csoHistory('abc', adaCso), 400, 'VALIDATION_ERROR', 'connectedSystemId');
      for (const [query, field] of [
        [{ pageSize: 1001 }, 'pageSize'],
        [{ pageSize: 0 }, 'pageSize'],
        [{ page: 0 }, 'page'],
      ] as const) {
        expectError(await mvoHistory(ada, query), 400, 'VALIDATION_ERROR', field);
        expectError(await csoHistory(hr, adaCso, query), 400, 'VALIDATION_ERROR', field);
      }
    });
  });

  describe('DELETE /metaverse/objects/{id}', () => {
    const mvoHistory = (id: string) => get(`/api/v1/metaverse/objects/${id}/history`);
    const tracking = (value: boolean) =>
      h.http.put('/api/v1/service-settings/ChangeTracking.MvoChanges.Enabled').set('X-Api-Key', h.adminKey).send({ value }).expect(200);
    const createUser = async (name: string, subject?: string) =>
      (
        await h.http
          .post('/api/v1/metaverse/objects')
          .set('X-Api-Key', h.adminKey)
          .send({ objectType: 'User', attributes: { 'Display Name': name, ...(subject ? { 'Subject Identifier': subject } : {}) } })
          .expect(201)
      ).body.id as string;

    afterAll(async () => {
      await tracking(true);
    });

    it('records a Deleted change with the initiator and the activity of the deletion', async () => {
      const id = await createUser('Removed Through The API');
      await h.http.delete(`/api/v1/metaverse/objects/${id}`).set('X-Api-Key', h.adminKey).expect(204);
      const listed = (await get(`${HISTORY}/deleted-objects/mvo`, { displayNameSearch: 'through the api' }).expect(200)).body;
      expect(listed.items).toEqual([
        {
          id,
          displayName: 'Removed Through The API',
          objectTypeName: 'User',
          objectTypeId: userType,
          changeTime: expect.stringMatching(ISO),
          initiatedByType: 'ApiKey',
          initiatedByName: 'Bootstrap administrator key',
        },
      ]);
      expect(Math.abs(Date.parse(listed.items[0].changeTime) - Date.now())).toBeLessThan(60_000);
      const [record] = (await mvoHistory(id)).body.items;
      expect(record).toEqual({
        id: expect.any(String),
        changeType: 'Deleted',
        changeTime: listed.items[0].changeTime,
        attributeChanges: [],
        connectedSystemId: null,
        connectedSystemName: null,
        connectedSystemObjectId: null,
        activityId: expect.any(String),
        runProfileId: null,
        runProfileName: null,
        initiatedByType: 'ApiKey',
        initiatedByName: 'Bootstrap administrator key',
      });
      const activity = (await get(`/api/v1/activities/${record.activityId}`).expect(200)).body;
      expect(activity).toMatchObject({ targetId: id, targetOperationType: 'Delete', initiatedByType: 'ApiKey' });
      const [stored] = await sql(`SELECT initiated_by_id FROM metaverse_object_change WHERE id = $1`, [record.id]);
      const [key] = await sql(`SELECT initiated_by_id FROM activity WHERE id = $1`, [record.activityId]);
      expect(stored.initiated_by_id).toBe(key.initiated_by_id);
    });

    it('records a signed-in administrator as a User initiator', async () => {
      const operator = await createUser('Olivia Operator', 'olivia');
      const [{ id: adminRole }] = await sql(`SELECT id FROM role WHERE name = 'Administrator'`);
      await h.http
        .post(`/api/v1/roles/${adminRole}/members`)
        .set('X-Api-Key', h.adminKey)
        .send({ metaverseObjectId: operator })
        .expect(201);
      const token = await idp.sign({ sub: 'olivia', iss: idp.issuer, aud: RESOURCE }, { expiresIn: '5m' });
      const id = await createUser('Removed By Olivia');
      await h.http.delete(`/api/v1/metaverse/objects/${id}`).set('Authorization', `Bearer ${token}`).expect(204);
      expect((await get(`${HISTORY}/deleted-objects/mvo`, { displayNameSearch: 'removed by olivia' }).expect(200)).body.items).toEqual([
        expect.objectContaining({ id, initiatedByType: 'User', initiatedByName: 'Olivia Operator' }),
      ]);
      const [stored] = await sql(`SELECT initiated_by_id FROM metaverse_object_change WHERE metaverse_object_id = $1`, [id]);
      expect(stored.initiated_by_id).toBe(operator);
      // A refused deletion (the last Administrator) records nothing.
      await h.http.delete(`/api/v1/metaverse/objects/${operator}`).set('X-Api-Key', h.adminKey).expect(409);
      expect((await mvoHistory(operator).expect(200)).body).toEqual({ items: [], totalCount: 0, page: 1, pageSize: 50 });
    });

    it('records nothing while metaverse change tracking is off', async () => {
      await tracking(false);
      const id = await createUser('Removed Untracked');
      await h.http.delete(`/api/v1/metaverse/objects/${id}`).set('X-Api-Key', h.adminKey).expect(204);
      expect((await get(`${HISTORY}/deleted-objects/mvo`, { displayNameSearch: 'Removed Untracked' }).expect(200)).body.totalCount).toBe(0);
      expectError(await mvoHistory(id), 404, 'NOT_FOUND');
    });
  });

  describe('access', () => {
    let noRolesKey: string;
    const routes = () => [
      `${HISTORY}/deleted-objects/cso`,
      `${HISTORY}/deleted-objects/mvo`,
      `${HISTORY}/connected-systems/${hr}/count`,
      `/api/v1/metaverse/objects/${randomUUID()}/history`,
      `${CS_BASE}/${hr}/connector-space/${randomUUID()}/history`,
    ];

    beforeAll(async () => {
      noRolesKey = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'reader', roles: [] }).expect(201)).body
        .key;
    });

    it('answers 401 without credentials and 403 without the Administrator role on every history route', async () => {
      for (const path of routes()) {
        expectError(await h.http.get(path), 401, 'UNAUTHORISED');
        expectError(await get(path, {}, noRolesKey), 403, 'FORBIDDEN');
      }
    });
  });
});
