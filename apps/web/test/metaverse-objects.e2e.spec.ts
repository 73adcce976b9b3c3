import { authorisedRequest, HttpMethod } from '@meridian/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OBJECTS = '/api/v1/metaverse/objects';

interface Res {
  status: number;
  body: any;
}

function expectError(res: Res, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.timestamp).toMatch(ISO);
}

function expectFields(res: Res, ...fields: string[]): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  expect(Object.keys(res.body.validationErrors ?? {}).sort()).toEqual([...fields].sort());
}

describe('metaverse objects (/api/v1/metaverse/objects)', () => {
  let h: WebHarness;
  let db: Client;
  let userTypeId: number;
  let groupTypeId: number;
  let ada: any;
  let grace: any;

  const call = (method: HttpMethod, path: string, body?: object) => authorisedRequest(h.http, h.adminKey, method, path, body);
  const list = async (query: Record<string, string | number>) =>
    (
      await call(
        'get',
        `${OBJECTS}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
      ).expect(200)
    ).body;
  /** Display names of a page, sorted (lists are ordered by id). */
  const names = (page: { items: Array<{ displayName: string | null }> }) => page.items.map((i) => i.displayName).sort();
  const attrId = async (name: string): Promise<number> =>
    (await db.query('SELECT id FROM metaverse_attribute WHERE name = $1', [name])).rows[0].id;
  const activities = async (targetId: string) =>
    (
      await db.query(
        `SELECT target_operation_type, target_name, target_context, details FROM activity WHERE target_type = 'MetaverseObject' AND target_id = $1 ORDER BY created, id`,
        [targetId],
      )
    ).rows;

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    userTypeId = (await db.query(`SELECT id FROM metaverse_object_type WHERE name = 'User'`)).rows[0].id;
    groupTypeId = (await db.query(`SELECT id FROM metaverse_object_type WHERE name = 'Group'`)).rows[0].id;
    ada = (
      await call('post', OBJECTS, {
        objectType: 'User',
        attributes: {
          'Display Name': 'Ada Lovelace',
          'Account Name': 'ada',
          Email: 'Ada@Example.org',
          Emails: ['ada@example.org', 'countess@example.org'],
          'Employee Number': 42,
          'Account Enabled': true,
          'Employee Start Date': '1833-06-05',
          objectGUID: '6F9619FF-8B86-D011-B42D-00C04FC964FF',
          Department: 'Analytical Engines',
        },
      }).expect(201)
    ).body;
    grace = (
      await call('post', OBJECTS, {
        objectTypeId: userTypeId,
        attributes: { 'Account Name': 'grace.hopper', Manager: ada.id, Department: 'Compilers' },
      }).expect(201)
    ).body;
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('create', () => {
    it('creates Internal objects by type name or id and returns the detail', () => {
      expect(ada).toMatchObject({
        id: expect.stringMatching(UUID),
        displayName: 'Ada Lovelace',
        status: 'Normal',
        origin: 'Internal',
        isPendingDeletion: false,
        deletionEligibleDate: null,
        lastConnectorDisconnectedDate: null,
        lastUpdated: null,
        type: { id: userTypeId, name: 'User' },
        connectedSystemObjects: [],
      });
      // No Display Name: the Account Name stands in (DOMAIN.md §3).
      expect(grace.displayName).toBe('grace.hopper');
    });

    it('records an activity with the display name and type', async () => {
      expect(await activities(ada.id)).toEqual([
        { target_operation_type: 'Create', target_name: 'Ada Lovelace', target_context: 'User', details: { attributes: 9 } },
      ]);
    });

    it.each<[string, object, string[]]>([
      ['neither objectType nor objectTypeId', { attributes: {} }, ['objectType']],
      ['an objectTypeId that does not exist', { objectTypeId: 99999, attributes: {} }, ['objectTypeId']],
      ['an objectTypeId that is not a whole number', { objectTypeId: 'User', attributes: {} }, ['objectTypeId']],
      ['objectType and objectTypeId that disagree', { objectType: 'Group', objectTypeId: 1, attributes: {} }, ['objectType']],
      ['an attribute of another type', { objectType: 'Group', attributes: { 'Employee ID': 'E1' } }, ['attributes.Employee ID']],
      [
        'the same attribute twice in different case',
        { objectType: 'User', attributes: { Department: 'A', department: 'B' } },
        ['attributes.department'],
      ],
      [
        'values of the wrong type',
        { objectType: 'User', attributes: { 'Employee Number': 'x', 'Account Enabled': 1 } },
        ['attributes.Employee Number', 'attributes.Account Enabled'],
      ],
    ])('refuses %s with 400 naming the field', async (_label, body, fields) => {
      const before = (await db.query('SELECT count(*)::int AS n FROM metaverse_object')).rows[0].n;
      expectFields(await call('post', OBJECTS, body), ...fields);
      expect((await db.query('SELECT count(*)::int AS n FROM metaverse_object')).rows[0].n).toBe(before);
    });

    it('writes lookup rows for indexed attributes only, normalised to lower case', async () => {
      const rows = (
        await db.query(
          `SELECT a.name, l.value_normalised FROM metaverse_object_lookup l JOIN metaverse_attribute a ON a.id = l.attribute_id WHERE l.object_id = $1 ORDER BY a.name`,
          [ada.id],
        )
      ).rows;
      expect(rows).toEqual([
        { name: 'Account Name', value_normalised: 'ada' },
        { name: 'Display Name', value_normalised: 'ada lovelace' },
        { name: 'Email', value_normalised: 'ada@example.org' },
        { name: 'objectGUID', value_normalised: '6f9619ff-8b86-d011-b42d-00c04fc964ff' },
      ]);
    });
  });

  describe('detail', () => {
    it('returns typed values with provenance, references and linked connector space objects', async () => {
      const [{ id: hr }] = (await db.query(`INSERT INTO connected_system (name, connector_type) VALUES ('HR', 'File') RETURNING id`)).rows;
      const [{ id: personType }] = (
        await db.query(`INSERT INTO connected_system_object_type (connected_system_id, name) VALUES ($1, 'person') RETURNING id`, [hr])
      ).rows;
      const csoId = randomUUID();
      await db.query(
        `INSERT INTO connected_system_object (id, connected_system_id, object_type_id, external_id, display_name, metaverse_object_id)
        VALUES ($1, $2, $3, 'E042', 'Lovelace, Ada', $4), ($5, $2, $3, 'E043', NULL, $4)`,
        [csoId, hr, personType, ada.id, randomUUID()],
      );
      // A value contributed by HR (as synchronisation will write it): {"<attributeId>": [{"v": …, "s": <system>}]}.
      const jobTitle = await attrId('Job Title');
      await db.query(
        `UPDATE metaverse_object SET attributes = attributes || jsonb_build_object($2::text, jsonb_build_array(jsonb_build_object('v', 'Analyst', 's', $3::int))),
        last_connector_disconnected_date = '2025-01-01T00:00:00Z', deletion_eligible_date = '2025-01-08T00:00:00Z' WHERE id = $1`,
        [ada.id, jobTitle, hr],
      );

      const detail = (await call('get', `${OBJECTS}/${ada.id}`).expect(200)).body;
      expect(detail).toMatchObject({
        id: ada.id,
        displayName: 'Ada Lovelace',
        origin: 'Internal',
        status: 'Normal',
        created: expect.stringMatching(ISO),
        lastConnectorDisconnectedDate: '2025-01-01T00:00:00.000Z',
        isPendingDeletion: true,
        deletionEligibleDate: '2025-01-08T00:00:00.000Z',
        type: { id: userTypeId, name: 'User' },
      });
      expect(detail.connectedSystemObjects).toEqual(
        expect.arrayContaining([
          { id: csoId, connectedSystemId: hr, connectedSystemName: 'HR', displayName: 'Lovelace, Ada' },
          { id: expect.stringMatching(UUID), connectedSystemId: hr, connectedSystemName: 'HR', displayName: 'E043' },
        ]),
      );
      expect(detail.connectedSystemObjects).toHaveLength(2);

      const empty = {
        stringValue: null,
        dateTimeValue: null,
        intValue: null,
        guidValue: null,
        boolValue: null,
        referenceValueId: null,
        referenceValueDisplayName: null,
        contributedBySystemId: null,
        contributedBySystemName: null,
      };
      const value = (name: string) => detail.attributeValues.filter((v: { attributeName: string }) => v.attributeName === name);
      expect(value('Job Title')).toEqual([
        {
          ...empty,
          id: expect.stringMatching(UUID),
          attributeId: jobTitle,
          attributeName: 'Job Title',
          attributeType: 'String',
          attributePlurality: 'Single',
          stringValue: 'Analyst',
          contributedBySystemId: hr,
          contributedBySystemName: 'HR',
        },
      ]);
      expect(value('Employee Number')[0]).toMatchObject({ ...empty, attributeType: 'Integer', intValue: 42 });
      expect(value('Account Enabled')[0]).toMatchObject({ ...empty, attributeType: 'Boolean', boolValue: true });
      expect(value('Employee Start Date')[0]).toMatchObject({
        ...empty,
        attributeType: 'DateTime',
        dateTimeValue: '1833-06-05T00:00:00.000Z',
      });
      expect(value('objectGUID')[0]).toMatchObject({ ...empty, attributeType: 'Guid', guidValue: '6f9619ff-8b86-d011-b42d-00c04fc964ff' });
      expect(value('Emails').map((v: { stringValue: string }) => v.stringValue)).toEqual(['ada@example.org', 'countess@example.org']);
      expect(value('Emails')[0]).toMatchObject({ attributePlurality: 'Multi', contributedBySystemId: null, contributedBySystemName: null });
      // Values are ordered by attribute name, and their ids are distinct and stable.
      const order = detail.attributeValues.map((v: { attributeName: string }) => v.attributeName.toLowerCase());
      expect(order).toEqual([...order].sort());
      const ids = detail.attributeValues.map((v: { id: string }) => v.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect((await call('get', `${OBJECTS}/${ada.id}`).expect(200)).body.attributeValues.map((v: { id: string }) => v.id)).toEqual(ids);

      const graceDetail = (await call('get', `${OBJECTS}/${grace.id}`).expect(200)).body;
      expect(graceDetail.attributeValues.find((v: { attributeName: string }) => v.attributeName === 'Manager')).toMatchObject({
        ...empty,
        attributeType: 'Reference',
        referenceValueId: ada.id,
        referenceValueDisplayName: 'Ada Lovelace',
      });
      expect(graceDetail.isPendingDeletion).toBe(false);
    });

    it('answers 404 for an object that does not exist and 400 for an id that is not a UUID', async () => {
      expectError(await call('get', `${OBJECTS}/${randomUUID()}`), 404, 'NOT_FOUND');
      for (const bad of ['abc', '123', `${randomUUID()}x`]) expectFields(await call('get', `${OBJECTS}/${bad}`), 'id');
    });
  });

  describe('list', () => {
    let teamTypeId: number;

    beforeAll(async () => {
      const displayName = await attrId('Display Name');
      teamTypeId = (
        await call('post', '/api/v1/metaverse/object-types', {
          name: 'Team',
          attributeIds: [displayName, await attrId('Description')],
        }).expect(201)
      ).body.id;
      for (let i = 1; i <= 30; i++) {
        await call('post', OBJECTS, {
          objectType: 'Team',
          attributes: { 'Display Name': `Team ${String(i).padStart(2, '0')}`, Description: i % 2 ? 'odd' : 'even' },
        }).expect(201);
      }
      await call('post', OBJECTS, {
        objectType: 'Group',
        attributes: { 'Display Name': '100% Analysts', 'Static Members': [ada.id, grace.id] },
      }).expect(201);
      await call('post', OBJECTS, {
        objectType: 'User',
        attributes: { 'Display Name': 'alan turing', Email: 'alan@example.org', 'Employee Number': 7 },
      }).expect(201);
    });

    it('returns the paginated envelope, ordered by id', async () => {
      const page = await list({});
      expect(page).toMatchObject({
        page: 1,
        pageSize: 25,
        totalCount: 34,
        totalPages: 2,
        hasNextPage: true,
        hasPreviousPage: false,
        totalCountIsExact: true,
      });
      const second = await list({ page: 2 });
      expect(second).toMatchObject({ page: 2, totalCount: 34, hasNextPage: false, hasPreviousPage: true });
      expect(second.items).toHaveLength(9);
      const ids = [...page.items, ...second.items].map((i: { id: string }) => i.id);
      expect(ids).toEqual([...ids].sort());
      expect(new Set(ids).size).toBe(34);
      const adaItem = [...page.items, ...second.items].find((i: { id: string }) => i.id === ada.id);
      expect(adaItem).toEqual({
        id: ada.id,
        created: expect.stringMatching(ISO),
        displayName: 'Ada Lovelace',
        status: 'Normal',
        typeId: userTypeId,
        typeName: 'User',
      });
      const group = [...page.items, ...second.items].find((i: { displayName: string }) => i.displayName === '100% Analysts');
      expect(group).toMatchObject({ typeId: groupTypeId, typeName: 'Group' });
    });

    it('filters by type and pages exactly', async () => {
      const all = (await list({ objectTypeId: teamTypeId, pageSize: 100 })).items;
      expect(all).toHaveLength(30);
      expect(all.every((i: { typeName: string }) => i.typeName === 'Team')).toBe(true);
      const page = await list({ objectTypeId: teamTypeId, pageSize: 7, page: 5 });
      expect(page).toMatchObject({
        totalCount: 30,
        totalPages: 5,
        page: 5,
        pageSize: 7,
        hasNextPage: false,
        hasPreviousPage: true,
        totalCountIsExact: true,
      });
      expect(page.items).toEqual(all.slice(28));
      expect(await list({ objectTypeId: teamTypeId, pageSize: 7, page: 4 })).toMatchObject({
        hasNextPage: true,
        totalCount: 30,
        items: all.slice(21, 28),
      });
      const beyond = await list({ objectTypeId: teamTypeId, pageSize: 7, page: 9 });
      expect(beyond).toMatchObject({ items: [], totalCount: 30, totalPages: 5, hasNextPage: false, hasPreviousPage: true });
    });

    it('searches display names: partial, case-insensitive, wildcards taken literally; one or two characters match a word start', async () => {
      expect(names(await list({ search: 'LOVE' }))).toEqual(['Ada Lovelace']);
      expect(names(await list({ search: 'uri' }))).toEqual(['alan turing']);
      expect(names(await list({ search: 'Tu' }))).toEqual(['alan turing']);
      expect(names(await list({ search: 'ur' }))).toEqual([]);
      expect(names(await list({ search: 'a' }))).toEqual(['100% Analysts', 'Ada Lovelace', 'alan turing']);
      expect(names(await list({ search: '100%' }))).toEqual(['100% Analysts']);
      expect(names(await list({ search: '%' }))).toEqual(['100% Analysts']);
      expect(names(await list({ search: 'team 1', objectTypeId: teamTypeId }))).toEqual([
        'Team 10',
        'Team 11',
        'Team 12',
        'Team 13',
        'Team 14',
        'Team 15',
        'Team 16',
        'Team 17',
        'Team 18',
        'Team 19',
      ]);
      expect(names(await list({ search: '_' }))).toEqual([]);
      expect((await list({ search: 'nobody' })).totalCount).toBe(0);
    });

    it('returns requested attributes in the attributes dictionary', async () => {
      const named = await list({ search: 'ada', attributes: 'email,Emails,Employee Number,Nickname,Proxy Addresses' });
      expect(named.items[0].attributes).toEqual({
        Email: 'Ada@Example.org',
        Emails: ['ada@example.org', 'countess@example.org'],
        'Employee Number': 42,
        Nickname: null,
        'Proxy Addresses': [],
      });
      const all = await list({ search: 'grace', attributes: '*' });
      expect(all.items[0].attributes).toEqual({ 'Account Name': 'grace.hopper', Department: 'Compilers', Manager: ada.id });
      const group = await list({ objectTypeId: groupTypeId, attributes: 'Static Members' });
      expect(group.items[0].attributes).toEqual({ 'Static Members': [ada.id, grace.id] });
      expect((await list({ search: 'ada' })).items[0]).not.toHaveProperty('attributes');
    });

    it('filters by an attribute value: exact, case-insensitive, any value of a multi-valued attribute, typed', async () => {
      expect(names(await list({ filterAttributeName: 'Email', filterAttributeValue: 'ADA@EXAMPLE.ORG' }))).toEqual(['Ada Lovelace']);
      expect(names(await list({ filterAttributeName: 'email', filterAttributeValue: 'ada@example' }))).toEqual([]);
      expect(names(await list({ filterAttributeName: 'Emails', filterAttributeValue: 'Countess@example.org' }))).toEqual(['Ada Lovelace']);
      expect(names(await list({ filterAttributeName: 'Employee Number', filterAttributeValue: '0042' }))).toEqual(['Ada Lovelace']);
      expect(names(await list({ filterAttributeName: 'Account Enabled', filterAttributeValue: 'TRUE' }))).toEqual(['Ada Lovelace']);
      expect(names(await list({ filterAttributeName: 'Employee Start Date', filterAttributeValue: '1833-06-05' }))).toEqual([
        'Ada Lovelace',
      ]);
      expect(
        names(await list({ filterAttributeName: 'objectGUID', filterAttributeValue: '6f9619ff-8b86-d011-b42d-00c04fc964ff' })),
      ).toEqual(['Ada Lovelace']);
      expect(names(await list({ filterAttributeName: 'Manager', filterAttributeValue: ada.id.toUpperCase() }))).toEqual(['grace.hopper']);
      const odd = await list({
        filterAttributeName: 'Description',
        filterAttributeValue: 'ODD',
        objectTypeId: teamTypeId,
        pageSize: 20,
        attributes: 'Description',
      });
      expect(names(odd)).toEqual(Array.from({ length: 15 }, (_, i) => `Team ${String(2 * i + 1).padStart(2, '0')}`));
      expect(odd.items.every((i: { attributes: object }) => JSON.stringify(i.attributes) === '{"Description":"odd"}')).toBe(true);
      expect(await list({ filterAttributeName: 'Description', filterAttributeValue: 'odd', pageSize: 3 })).toMatchObject({
        totalCount: 15,
        totalPages: 5,
      });
      // Filters, search and type combine.
      expect(
        names(
          await list({ filterAttributeName: 'Department', filterAttributeValue: 'compilers', search: 'hopper', objectTypeId: userTypeId }),
        ),
      ).toEqual(['grace.hopper']);
      expect(
        names(await list({ filterAttributeName: 'Department', filterAttributeValue: 'compilers', objectTypeId: groupTypeId })),
      ).toEqual([]);
    });

    it('counts exactly up to a bound past the page start, and says when it stopped', async () => {
      const [{ id: bulkType }] = (await db.query(`INSERT INTO metaverse_object_type (name) VALUES ('Bulk') RETURNING id`)).rows;
      await db.query(
        `INSERT INTO metaverse_object (type_id, origin, display_name) SELECT $1, 'Projected', 'bulk ' || lpad(i::text, 5, '0') FROM generate_series(1, 1030) i`,
        [bulkType],
      );
      const ids: string[] = (await db.query('SELECT id FROM metaverse_object WHERE type_id = $1 ORDER BY id', [bulkType])).rows.map(
        (r) => r.id,
      );
      const idsOf = (page: { items: Array<{ id: string }> }) => page.items.map((i) => i.id);
      const first = await list({ objectTypeId: bulkType, pageSize: 100 });
      expect(first).toMatchObject({ totalCount: 1_000, totalCountIsExact: false, totalPages: 10, hasNextPage: true });
      expect(idsOf(first)).toEqual(ids.slice(0, 100));
      const last = await list({ objectTypeId: bulkType, pageSize: 100, page: 11 });
      expect(last).toMatchObject({ totalCount: 1_030, totalCountIsExact: true, totalPages: 11, hasNextPage: false });
      expect(idsOf(last)).toEqual(ids.slice(1000));
      const page10 = await list({ objectTypeId: bulkType, pageSize: 100, page: 10 });
      expect(page10).toMatchObject({ totalCount: 1_030, totalCountIsExact: true, hasNextPage: true });
      expect(idsOf(page10)).toEqual(ids.slice(900, 1000));
      // Searches over the same objects: many matches walk the id order (per type when no type is given),
      // few are cut from the matches themselves. The same pages either way.
      const dense = await list({ objectTypeId: bulkType, search: 'BULK', pageSize: 10, page: 3 });
      expect(dense).toMatchObject({ totalCount: 1_020, totalCountIsExact: false, hasNextPage: true });
      expect(idsOf(dense)).toEqual(ids.slice(20, 30));
      const anyType = await list({ search: 'bulk', pageSize: 10, page: 2 });
      expect(anyType).toMatchObject({ totalCount: 1_010, totalCountIsExact: false });
      expect(idsOf(anyType)).toEqual(ids.slice(10, 20));
      const sparse = await list({ objectTypeId: bulkType, search: 'bulk 0001' });
      expect(sparse).toMatchObject({ totalCount: 10, totalCountIsExact: true });
      expect(names(sparse)).toEqual(Array.from({ length: 10 }, (_, i) => `bulk 0001${i}`));
      await db.query('DELETE FROM metaverse_object WHERE type_id = $1', [bulkType]);
    });

    it.each<[string, Record<string, string>, string[]]>([
      ['pageSize over 100', { pageSize: '101' }, ['pageSize']],
      ['pageSize 0', { pageSize: '0' }, ['pageSize']],
      ['page 0', { page: '0' }, ['page']],
      ['a page that is not a number', { page: 'two' }, ['page']],
      ['an objectTypeId that is not a number', { objectTypeId: 'User' }, ['objectTypeId']],
      ['an objectTypeId that does not exist', { objectTypeId: '99999' }, ['objectTypeId']],
      ['a search over 200 characters', { search: 's'.repeat(201) }, ['search']],
      ['an unknown attribute in attributes', { attributes: 'Email,Shoe Size' }, ['attributes']],
      ['* with names in attributes', { attributes: '*,Email' }, ['attributes']],
      ['an empty name in attributes', { attributes: 'Email,,Department' }, ['attributes']],
      ['filterAttributeName without a value', { filterAttributeName: 'Email' }, ['filterAttributeValue']],
      ['filterAttributeValue without a name', { filterAttributeValue: 'x' }, ['filterAttributeName']],
      ['an unknown filter attribute', { filterAttributeName: 'Shoe Size', filterAttributeValue: '9' }, ['filterAttributeName']],
      [
        'a filter value of the wrong type',
        { filterAttributeName: 'Employee Number', filterAttributeValue: 'forty-two' },
        ['filterAttributeValue'],
      ],
      ['an unknown query parameter', { sort: 'name' }, ['sort']],
    ])('refuses %s with 400 naming the parameter', async (_label, query, fields) => {
      expectFields(await call('get', `${OBJECTS}?${new URLSearchParams(query)}`), ...fields);
    });
  });

  describe('update', () => {
    it('merges attributes into an Internal object, recomputing the display name and lookup rows', async () => {
      const res = await call('put', `${OBJECTS}/${ada.id}`, {
        attributes: { 'Display Name': 'Augusta Ada King', Email: 'countess@example.org', Department: null, Nickname: 'Ada' },
      }).expect(200);
      expect(res.body).toMatchObject({ id: ada.id, displayName: 'Augusta Ada King', lastUpdated: expect.stringMatching(ISO) });
      const names_ = res.body.attributeValues.map((v: { attributeName: string }) => v.attributeName);
      expect(names_).toEqual(expect.arrayContaining(['Account Name', 'Emails', 'Employee Number', 'Job Title', 'Nickname']));
      expect(names_).not.toContain('Department');
      expect(names(await list({ filterAttributeName: 'Email', filterAttributeValue: 'ada@example.org' }))).toEqual([]);
      expect(names(await list({ filterAttributeName: 'Email', filterAttributeValue: 'COUNTESS@example.org' }))).toEqual([
        'Augusta Ada King',
      ]);
      expect(names(await list({ search: 'augusta' }))).toEqual(['Augusta Ada King']);
      // The reference from grace now shows the new name.
      const manager = (await call('get', `${OBJECTS}/${grace.id}`).expect(200)).body.attributeValues.find(
        (v: { attributeName: string }) => v.attributeName === 'Manager',
      );
      expect(manager.referenceValueDisplayName).toBe('Augusta Ada King');
      const [update] = (await activities(ada.id)).filter((a) => a.target_operation_type === 'Update');
      expect(update).toMatchObject({
        target_name: 'Augusta Ada King',
        target_context: 'User',
        details: { changed: ['Display Name', 'Email', 'Department', 'Nickname'] },
      });
      // Removing the Display Name falls back to the Account Name.
      expect((await call('put', `${OBJECTS}/${ada.id}`, { attributes: { 'Display Name': '' } }).expect(200)).body.displayName).toBe('ada');
      await call('put', `${OBJECTS}/${ada.id}`, { attributes: { 'Display Name': 'Ada Lovelace' } }).expect(200);
    });

    it('refuses invalid values naming the attribute, and changes nothing', async () => {
      const before = (await call('get', `${OBJECTS}/${ada.id}`).expect(200)).body;
      expectFields(
        await call('put', `${OBJECTS}/${ada.id}`, { attributes: { 'Employee Number': 'many', 'Shoe Size': 9 } }),
        'attributes.Employee Number',
        'attributes.Shoe Size',
      );
      expectFields(
        await call('put', `${OBJECTS}/${ada.id}`, { attributes: { 'First Name': ['Ada', 'Augusta'] } }),
        'attributes.First Name',
      );
      expectFields(await call('put', `${OBJECTS}/${ada.id}`, { attributes: ['x'] }), 'attributes');
      expectFields(await call('put', `${OBJECTS}/${ada.id}`, {}), 'attributes');
      expect((await call('get', `${OBJECTS}/${ada.id}`).expect(200)).body).toEqual(before);
    });

    it('refuses Projected objects (400), unknown objects (404) and ids that are not UUIDs (400)', async () => {
      const [{ id }] = (
        await db.query(`INSERT INTO metaverse_object (type_id, origin, display_name) VALUES ($1, 'Projected', 'From HR') RETURNING id`, [
          userTypeId,
        ])
      ).rows;
      expectError(await call('put', `${OBJECTS}/${id}`, { attributes: { Department: 'X' } }), 400, 'BAD_REQUEST');
      expectError(await call('delete', `${OBJECTS}/${id}`), 400, 'BAD_REQUEST');
      expect((await call('get', `${OBJECTS}/${id}`).expect(200)).body.origin).toBe('Projected');
      expectError(await call('put', `${OBJECTS}/${randomUUID()}`, { attributes: {} }), 404, 'NOT_FOUND');
      expectFields(await call('put', `${OBJECTS}/nope`, { attributes: {} }), 'id');
      expectError(await call('delete', `${OBJECTS}/${randomUUID()}`), 404, 'NOT_FOUND');
      expectFields(await call('delete', `${OBJECTS}/nope`), 'id');
    });
  });

  describe('delete', () => {
    it('deletes an Internal object with its lookup rows, removes references to it and disconnects its connector space objects', async () => {
      const boss = (
        await call('post', OBJECTS, { objectType: 'User', attributes: { 'Display Name': 'The Boss', Email: 'boss@example.org' } }).expect(
          201,
        )
      ).body.id;
      const report = (
        await call('post', OBJECTS, { objectType: 'User', attributes: { 'Display Name': 'Report', Manager: boss } }).expect(201)
      ).body.id;
      const team = (
        await call('post', OBJECTS, {
          objectType: 'Group',
          attributes: { 'Display Name': 'Bosses', 'Static Members': [boss, ada.id], 'Managed By': boss },
        }).expect(201)
      ).body.id;
      const [{ id: hr }] = (await db.query(`SELECT id FROM connected_system WHERE name = 'HR'`)).rows;
      const [{ id: personType }] = (await db.query(`SELECT id FROM connected_system_object_type WHERE connected_system_id = $1`, [hr]))
        .rows;
      const cso = randomUUID();
      await db.query(
        `INSERT INTO connected_system_object (id, connected_system_id, object_type_id, external_id, metaverse_object_id, join_type)
        VALUES ($1, $2, $3, 'E-BOSS', $4, 'Joined')`,
        [cso, hr, personType, boss],
      );

      await call('delete', `${OBJECTS}/${boss}`).expect(204);
      expectError(await call('get', `${OBJECTS}/${boss}`), 404, 'NOT_FOUND');
      expect((await db.query('SELECT count(*)::int AS n FROM metaverse_object_lookup WHERE object_id = $1', [boss])).rows[0].n).toBe(0);
      expect((await db.query('SELECT metaverse_object_id, join_type FROM connected_system_object WHERE id = $1', [cso])).rows[0]).toEqual({
        metaverse_object_id: null,
        join_type: null,
      });
      const reportDetail = (await call('get', `${OBJECTS}/${report}`).expect(200)).body;
      expect(reportDetail.attributeValues.map((v: { attributeName: string }) => v.attributeName)).toEqual(['Display Name']);
      const teamValues = (await call('get', `${OBJECTS}/${team}`).expect(200)).body.attributeValues;
      expect(
        teamValues.map((v: { attributeName: string; referenceValueId: string | null }) => [v.attributeName, v.referenceValueId]),
      ).toEqual([
        ['Display Name', null],
        ['Static Members', ada.id],
      ]);
      const [deleted] = (await activities(boss)).filter((a) => a.target_operation_type === 'Delete');
      expect(deleted).toMatchObject({
        target_name: 'The Boss',
        target_context: 'User',
        details: { referencesRemovedFrom: 2, disconnectedConnectedSystemObjects: 1, wasAdministrator: false },
      });
    });

    it('never deletes the last member of the Administrator role', async () => {
      const [{ id: roleId }] = (await db.query(`SELECT id FROM role WHERE name = 'Administrator'`)).rows;
      const admin = (
        await call('post', OBJECTS, {
          objectType: 'User',
          attributes: { 'Display Name': 'Only Admin', 'Subject Identifier': 'only-admin' },
        }).expect(201)
      ).body.id;
      await call('post', `/api/v1/roles/${roleId}/members`, { metaverseObjectId: admin }).expect(201);
      const res = await call('delete', `${OBJECTS}/${admin}`);
      expectError(res, 409, 'CONFLICT');
      expect(res.body.message).toMatch(/last member of the Administrator role/);
      expect((await call('get', `${OBJECTS}/${admin}`).expect(200)).body.id).toBe(admin);

      // With a second administrator the first can go, and its membership goes with it.
      await call('post', `/api/v1/roles/${roleId}/members`, { metaverseObjectId: ada.id }).expect(201);
      await call('delete', `${OBJECTS}/${admin}`).expect(204);
      expect((await db.query('SELECT metaverse_object_id FROM role_member WHERE role_id = $1', [roleId])).rows).toEqual([
        { metaverse_object_id: ada.id },
      ]);
      const [deleted] = (await activities(admin)).filter((a) => a.target_operation_type === 'Delete');
      expect(deleted.details.wasAdministrator).toBe(true);
      // Ada is now the last administrator.
      expectError(await call('delete', `${OBJECTS}/${ada.id}`), 409, 'CONFLICT');
    });
  });
});
