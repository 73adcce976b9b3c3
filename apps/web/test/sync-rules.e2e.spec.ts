import { authorisedRequest, HttpMethod } from '@meridian/testing';
import { Client } from 'pg';
import {
  ConnectedSystemFixture,
  createConnectedSystemFixture,
  metaverseType,
  takeFullSyncRequired,
} from './fixtures/connected-system.fixture';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/synchronisation/sync-rules';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Res {
  status: number;
  body: any;
}

function expectValidation(res: Res, ...fields: string[]): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  for (const field of fields) expect(Object.keys(res.body.validationErrors ?? {})).toContain(field);
}

describe('sync rules (/api/v1/synchronisation/sync-rules)', () => {
  let h: WebHarness;
  let db: Client;
  let hr: ConnectedSystemFixture;
  let ad: ConnectedSystemFixture;
  let user: { id: number; attributes: Record<string, number> };
  let group: { id: number; attributes: Record<string, number> };

  const call = (method: HttpMethod, path: string, body?: object) => authorisedRequest(h.http, h.adminKey, method, path, body);
  const importRule = (overrides: Record<string, unknown> = {}) => ({
    name: `HR users in ${Math.random().toString(36).slice(2, 8)}`,
    connectedSystemId: hr.id,
    direction: 'Import',
    connectedSystemObjectTypeId: hr.types.person.id,
    metaverseObjectTypeId: user.id,
    ...overrides,
  });
  const exportRule = (overrides: Record<string, unknown> = {}) => ({
    name: `AD users out ${Math.random().toString(36).slice(2, 8)}`,
    connectedSystemId: ad.id,
    direction: 'Export',
    connectedSystemObjectTypeId: ad.types.user.id,
    metaverseObjectTypeId: user.id,
    ...overrides,
  });
  const activities = async (targetType = 'SyncRule') =>
    (await db.query(`SELECT * FROM activity WHERE target_type = $1 ORDER BY created, id`, [targetType])).rows;

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    hr = await createConnectedSystemFixture(db, 'HR', {
      person: {
        attributes: [
          { name: 'employeeId', isExternalId: true },
          'firstName',
          'lastName',
          'department',
          { name: 'hireDate', type: 'DateTime' },
          { name: 'grade', type: 'Integer' },
          { name: 'active', type: 'Boolean' },
          { name: 'manager', type: 'Reference' },
          { name: 'secret', selected: false },
        ],
      },
      contractor: { selected: false, attributes: ['id'] },
    });
    ad = await createConnectedSystemFixture(db, 'Directory', { user: { attributes: ['sAMAccountName', 'displayName'] } });
    user = await metaverseType(db, 'User');
    group = await metaverseType(db, 'Group');
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('create', () => {
    it('creates an import rule (201) with defaults, records a SyncRule Create activity and flags a full synchronisation', async () => {
      await takeFullSyncRequired(db, hr.id);
      const before = (await activities()).length;
      const res = await call(
        'post',
        BASE,
        importRule({ name: '  HR people  ', description: 'Everyone on the payroll', projectToMetaverse: true }),
      ).expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'HR people',
        description: 'Everyone on the payroll',
        direction: 'Import',
        enabled: true,
        connectedSystemId: hr.id,
        connectedSystemName: 'HR',
        connectedSystemObjectTypeId: hr.types.person.id,
        connectedSystemObjectTypeName: 'person',
        metaverseObjectTypeId: user.id,
        metaverseObjectTypeName: 'User',
        projectToMetaverse: true,
        provisionToConnectedSystem: false,
        inboundOutOfScopeAction: 'Disconnect',
        outboundDeprovisionAction: null,
        hasScopingCriteria: false,
        mappingCount: 0,
        matchingRuleCount: 0,
        created: expect.stringMatching(ISO),
        lastUpdated: null,
        scopingCriteria: [],
        mappings: [],
        matchingRules: [],
      });
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const recorded = (await activities()).slice(before);
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({
        target_type: 'SyncRule',
        target_operation_type: 'Create',
        target_id: String(res.body.id),
        target_name: 'HR people',
        target_context: 'HR',
        sync_rule_id: res.body.id,
        connected_system_id: hr.id,
        initiated_by_type: 'ApiKey',
        status: 'Complete',
      });
      expect(recorded[0].details).toMatchObject({
        direction: 'Import',
        connectedSystemObjectType: 'person',
        metaverseObjectType: 'User',
        projectToMetaverse: true,
      });
      const detail = await call('get', `/api/v1/activities/${recorded[0].id}`).expect(200);
      expect(detail.body).toMatchObject({
        targetType: 'SyncRule',
        targetOperationType: 'Create',
        targetName: 'HR people',
        syncRuleId: res.body.id,
        connectedSystemId: hr.id,
      });
    });

    it('creates an export rule with its own defaults', async () => {
      const res = await call(
        'post',
        BASE,
        exportRule({ provisionToConnectedSystem: true, outboundDeprovisionAction: 'Delete', enabled: false }),
      ).expect(201);
      expect(res.body).toMatchObject({
        direction: 'Export',
        provisionToConnectedSystem: true,
        projectToMetaverse: false,
        outboundDeprovisionAction: 'Delete',
        inboundOutOfScopeAction: null,
        enabled: false,
        connectedSystemName: 'Directory',
        connectedSystemObjectTypeName: 'user',
      });
      const plain = await call('post', BASE, exportRule()).expect(201);
      expect(plain.body).toMatchObject({ outboundDeprovisionAction: 'Disconnect', provisionToConnectedSystem: false, enabled: true });
    });

    it('refuses a body without the required fields, naming each', async () => {
      const res = await call('post', BASE, {});
      expectValidation(res, 'name', 'connectedSystemId', 'direction', 'connectedSystemObjectTypeId', 'metaverseObjectTypeId');
    });

    it.each([
      ['an empty name', { name: '   ' }, 'name'],
      ['a name over 200 characters', { name: 'x'.repeat(201) }, 'name'],
      ['an unknown direction', { direction: 'Both' }, 'direction'],
      ['a connected system that does not exist', { connectedSystemId: 999999 }, 'connectedSystemId'],
      ['an object type that does not exist', { connectedSystemObjectTypeId: 999999 }, 'connectedSystemObjectTypeId'],
      ['a metaverse object type that does not exist', { metaverseObjectTypeId: 999999 }, 'metaverseObjectTypeId'],
      ['an unknown inboundOutOfScopeAction', { inboundOutOfScopeAction: 'Keep' }, 'inboundOutOfScopeAction'],
      ['provisionToConnectedSystem on an import rule', { provisionToConnectedSystem: true }, 'provisionToConnectedSystem'],
      ['outboundDeprovisionAction on an import rule', { outboundDeprovisionAction: 'Delete' }, 'outboundDeprovisionAction'],
      ['a description over 2000 characters', { description: 'x'.repeat(2001) }, 'description'],
      ['an unknown field', { colour: 'blue' }, 'colour'],
      ['a string id', { connectedSystemId: '1' }, 'connectedSystemId'],
      ['scoping criteria that are not an array', { scopingCriteria: { type: 'All' } }, 'scopingCriteria'],
      ['enabled as null', { enabled: null }, 'enabled'],
      ['projectToMetaverse that is not a boolean', { projectToMetaverse: 'yes' }, 'projectToMetaverse'],
    ])('refuses %s (400 naming the field)', async (_label, overrides, field) => {
      expectValidation(await call('post', BASE, importRule(overrides)), field);
    });

    it.each([
      ['projectToMetaverse', { projectToMetaverse: true }],
      ['inboundOutOfScopeAction', { inboundOutOfScopeAction: 'RemainJoined' }],
    ])('refuses the import-only field %s on an export rule', async (field, overrides) => {
      const res = await call('post', BASE, exportRule(overrides));
      expectValidation(res, field);
      expect(res.body.validationErrors[field][0]).toMatch(/applies to Import rules only/);
    });

    it('tolerates false for a field of the other direction', async () => {
      await call('post', BASE, exportRule({ projectToMetaverse: false })).expect(201);
      await call('post', BASE, importRule({ provisionToConnectedSystem: false })).expect(201);
    });

    it('refuses an object type of another connected system, and an unselected one', async () => {
      const other = await call('post', BASE, importRule({ connectedSystemObjectTypeId: ad.types.user.id }));
      expectValidation(other, 'connectedSystemObjectTypeId');
      expect(other.body.validationErrors.connectedSystemObjectTypeId[0]).toMatch(/belongs to another connected system/);
      const unselected = await call('post', BASE, importRule({ connectedSystemObjectTypeId: hr.types.contractor.id }));
      expectValidation(unselected, 'connectedSystemObjectTypeId');
      expect(unselected.body.validationErrors.connectedSystemObjectTypeId[0]).toMatch(
        /"contractor" is not selected for synchronisation: select it first/,
      );
    });

    it('refuses a duplicate name (ignoring case) with 409 CONFLICT', async () => {
      await call('post', BASE, importRule({ name: 'Unique rule' })).expect(201);
      const res = await call('post', BASE, importRule({ name: 'UNIQUE RULE' }));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
    });

    it('creates nothing and records nothing when refused', async () => {
      const [{ count: rules }] = (await db.query(`SELECT count(*)::int AS count FROM sync_rule`)).rows;
      const before = (await activities()).length;
      await call('post', BASE, importRule({ metaverseObjectTypeId: 999999 })).expect(400);
      expect((await db.query(`SELECT count(*)::int AS count FROM sync_rule`)).rows[0].count).toBe(rules);
      expect(await activities()).toHaveLength(before);
    });
  });

  describe('list and get', () => {
    let hrRuleId: number;

    beforeAll(async () => {
      hrRuleId = (await call('post', BASE, importRule({ name: 'AAA listed first' })).expect(201)).body.id;
    });

    it('lists rules in the paginated envelope, ordered by name, with counts and without the embedded children', async () => {
      const res = await call('get', `${BASE}?pageSize=100`).expect(200);
      expect(res.body).toMatchObject({ page: 1, pageSize: 100, hasPreviousPage: false, hasNextPage: false });
      expect(res.body.totalCount).toBe(res.body.items.length);
      const names = res.body.items.map((r: any) => r.name.toLowerCase());
      expect(names).toEqual([...names].sort());
      expect(res.body.items[0]).toMatchObject({ id: hrRuleId, name: 'AAA listed first', mappingCount: 0, matchingRuleCount: 0 });
      expect(res.body.items[0]).not.toHaveProperty('mappings');
    });

    it('filters by connected system, direction and metaverse object type, and pages', async () => {
      const byAd = (await call('get', `${BASE}?connectedSystemId=${ad.id}`).expect(200)).body;
      expect(byAd.items.length).toBeGreaterThan(0);
      expect(byAd.items.every((r: any) => r.connectedSystemId === ad.id && r.direction === 'Export')).toBe(true);
      const imports = (await call('get', `${BASE}?direction=Import&pageSize=100`).expect(200)).body;
      expect(imports.items.every((r: any) => r.direction === 'Import')).toBe(true);
      expect((await call('get', `${BASE}?metaverseObjectTypeId=${group.id}`).expect(200)).body).toMatchObject({ items: [], totalCount: 0 });
      const page2 = (await call('get', `${BASE}?pageSize=1&page=2`).expect(200)).body;
      expect(page2).toMatchObject({ page: 2, pageSize: 1, hasPreviousPage: true });
      expect(page2.items).toHaveLength(1);
    });

    it.each([
      ['pageSize=101', 'pageSize'],
      ['page=0', 'page'],
      ['direction=Sideways', 'direction'],
      ['connectedSystemId=abc', 'connectedSystemId'],
      ['metaverseObjectTypeId=-1', 'metaverseObjectTypeId'],
    ])('refuses ?%s', async (query, field) => {
      expectValidation(await call('get', `${BASE}?${query}`), field);
    });

    it('answers 404 for a rule that does not exist and 400 for an id that is not a positive integer', async () => {
      const missing = await call('get', `${BASE}/999999`);
      expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
      for (const path of [`${BASE}/999999`, `${BASE}/999999/scoping-criteria`]) {
        expect((await call('get', path)).status).toBe(404);
        expect((await call('put', path, { scopingCriteria: [] })).status).toBe(404);
      }
      expect((await call('delete', `${BASE}/999999`)).status).toBe(404);
      expectValidation(await call('get', `${BASE}/abc`), 'id');
      expectValidation(await call('get', `${BASE}/0`), 'id');
    });
  });

  describe('update', () => {
    let rule: any;

    beforeEach(async () => {
      rule = (await call('post', BASE, importRule()).expect(201)).body;
      await takeFullSyncRequired(db, hr.id);
    });

    it('changes only the fields given, sets lastUpdated, flags a full sync and records what changed', async () => {
      const before = (await activities()).length;
      const res = await call('put', `${BASE}/${rule.id}`, {
        name: `${rule.name} (renamed)`,
        enabled: false,
        inboundOutOfScopeAction: 'RemainJoined',
      }).expect(200);
      expect(res.body).toMatchObject({
        id: rule.id,
        name: `${rule.name} (renamed)`,
        enabled: false,
        inboundOutOfScopeAction: 'RemainJoined',
        projectToMetaverse: rule.projectToMetaverse,
        description: rule.description,
        lastUpdated: expect.stringMatching(ISO),
      });
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const [activity] = (await activities()).slice(before);
      expect(activity).toMatchObject({ target_operation_type: 'Update', target_name: `${rule.name} (renamed)`, sync_rule_id: rule.id });
      expect(activity.details).toEqual({ changed: ['name', 'enabled', 'inboundOutOfScopeAction'], previousName: rule.name });
      expect((await call('get', `${BASE}/${rule.id}`).expect(200)).body).toMatchObject({ name: `${rule.name} (renamed)`, enabled: false });
    });

    it('records nothing and flags nothing when nothing changes', async () => {
      const before = (await activities()).length;
      await call('put', `${BASE}/${rule.id}`, { name: rule.name, enabled: true, direction: 'Import', connectedSystemId: hr.id }).expect(
        200,
      );
      expect(await activities()).toHaveLength(before);
      expect(await takeFullSyncRequired(db, hr.id)).toBe(false);
    });

    it('keeps direction and connectedSystemId immutable (400)', async () => {
      expectValidation(await call('put', `${BASE}/${rule.id}`, { direction: 'Export' }), 'direction');
      expectValidation(await call('put', `${BASE}/${rule.id}`, { connectedSystemId: ad.id }), 'connectedSystemId');
      expect((await call('get', `${BASE}/${rule.id}`).expect(200)).body).toMatchObject({ direction: 'Import', connectedSystemId: hr.id });
    });

    it('refuses fields of the other direction and invalid values', async () => {
      expectValidation(await call('put', `${BASE}/${rule.id}`, { outboundDeprovisionAction: 'Delete' }), 'outboundDeprovisionAction');
      expectValidation(await call('put', `${BASE}/${rule.id}`, { provisionToConnectedSystem: true }), 'provisionToConnectedSystem');
      expectValidation(await call('put', `${BASE}/${rule.id}`, { inboundOutOfScopeAction: null }), 'inboundOutOfScopeAction');
      expectValidation(await call('put', `${BASE}/${rule.id}`, { name: '' }), 'name');
      expectValidation(await call('put', `${BASE}/${rule.id}`, { enabled: 'yes' }), 'enabled');
    });

    it('refuses renaming to the name of another rule (409)', async () => {
      const other = (await call('post', BASE, importRule()).expect(201)).body;
      const res = await call('put', `${BASE}/${rule.id}`, { name: other.name.toUpperCase() });
      expect(res.status).toBe(409);
    });

    it('changes the object types while the rule has nothing that names their attributes, and refuses it afterwards', async () => {
      const groupType = (await call('put', `${BASE}/${rule.id}`, { metaverseObjectTypeId: group.id }).expect(200)).body;
      expect(groupType).toMatchObject({ metaverseObjectTypeId: group.id, metaverseObjectTypeName: 'Group' });
      await call('put', `${BASE}/${rule.id}`, { metaverseObjectTypeId: user.id }).expect(200);
      await call('post', `${BASE}/${rule.id}/mappings`, {
        targetMetaverseAttributeId: user.attributes['First Name'],
        sources: [{ connectedSystemAttributeId: hr.types.person.attributes.firstName }],
      }).expect(201);
      const res = await call('put', `${BASE}/${rule.id}`, { metaverseObjectTypeId: group.id });
      expectValidation(res, 'metaverseObjectTypeId');
      expect(res.body.validationErrors.metaverseObjectTypeId[0]).toMatch(/1 mapping/);
      expectValidation(
        await call('put', `${BASE}/${rule.id}`, { connectedSystemObjectTypeId: hr.types.contractor.id }),
        'connectedSystemObjectTypeId',
      );
    });

    it('answers 404 for a rule that does not exist', async () => {
      expect((await call('put', `${BASE}/999999`, { enabled: false })).status).toBe(404);
    });
  });

  describe('scoping criteria', () => {
    let rule: any;
    const p = () => hr.types.person.attributes;

    beforeAll(async () => {
      rule = (
        await call(
          'post',
          BASE,
          importRule({
            scopingCriteria: [
              { type: 'All', criteria: [{ attributeId: hr.types.person.attributes.department, operator: 'Equals', value: 'Sales' }] },
            ],
          }),
        ).expect(201)
      ).body;
    });

    it('stores criteria given on create, normalised, and shows hasScopingCriteria', async () => {
      expect(rule.hasScopingCriteria).toBe(true);
      expect(rule.scopingCriteria).toEqual([
        { type: 'All', groups: [], criteria: [{ attributeId: p().department, operator: 'Equals', value: 'Sales', caseSensitive: false }] },
      ]);
      expect((await call('get', `${BASE}/${rule.id}/scoping-criteria`).expect(200)).body).toEqual({
        syncRuleId: rule.id,
        scopingCriteria: rule.scopingCriteria,
      });
    });

    it('replaces them through PUT …/scoping-criteria with nesting, relative dates and case sensitivity', async () => {
      await takeFullSyncRequired(db, hr.id);
      const criteria = [
        {
          type: 'All',
          criteria: [{ attributeId: p().department, operator: 'StartsWith', value: 'Sal', caseSensitive: true }],
          groups: [
            {
              type: 'Any',
              criteria: [
                { attributeId: p().hireDate, operator: 'GreaterThan', value: '30 days ago' },
                { attributeId: p().grade, operator: 'LessThan', value: 5 },
              ],
            },
          ],
        },
        {
          type: 'Any',
          criteria: [
            { attributeId: p().hireDate, operator: 'LessThan', value: '2025-01-31' },
            { attributeId: p().active, operator: 'Equals', value: true },
            { attributeId: p().manager, operator: 'IsNotPresent' },
          ],
        },
      ];
      const res = await call('put', `${BASE}/${rule.id}/scoping-criteria`, { scopingCriteria: criteria }).expect(200);
      expect(res.body.scopingCriteria[0].groups[0].criteria[0].value).toEqual({ relative: { amount: 30, unit: 'Days', direction: 'Ago' } });
      expect(res.body.scopingCriteria[1].criteria[0].value).toBe('2025-01-31T00:00:00.000Z');
      expect(res.body.scopingCriteria[1].criteria[2]).toEqual({
        attributeId: p().manager,
        operator: 'IsNotPresent',
        value: null,
        caseSensitive: false,
      });
      expect(res.body.scopingCriteria[0].criteria[0].caseSensitive).toBe(true);
      expect((await call('get', `${BASE}/${rule.id}`).expect(200)).body.scopingCriteria).toEqual(res.body.scopingCriteria);
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const [activity] = (await activities()).slice(-1);
      expect(activity).toMatchObject({ target_operation_type: 'Update', sync_rule_id: rule.id });
      expect(activity.details.changed).toEqual(['scopingCriteria']);
    });

    it('does not record a change when the same criteria are sent again', async () => {
      const current = (await call('get', `${BASE}/${rule.id}/scoping-criteria`).expect(200)).body.scopingCriteria;
      const before = (await activities()).length;
      await call('put', `${BASE}/${rule.id}/scoping-criteria`, { scopingCriteria: current }).expect(200);
      expect(await activities()).toHaveLength(before);
    });

    it.each([
      [
        'an unknown operator',
        () => [{ type: 'All', criteria: [{ attributeId: p().department, operator: 'Like', value: 'x' }] }],
        'scopingCriteria[0].criteria[0].operator',
      ],
      [
        'an operator that does not fit the type',
        () => [{ type: 'All', criteria: [{ attributeId: p().department, operator: 'GreaterThan', value: 'x' }] }],
        'scopingCriteria[0].criteria[0].operator',
      ],
      [
        'a value that does not fit the type',
        () => [{ type: 'All', criteria: [{ attributeId: p().grade, operator: 'Equals', value: 'five' }] }],
        'scopingCriteria[0].criteria[0].value',
      ],
      [
        'a malformed date',
        () => [{ type: 'All', criteria: [{ attributeId: p().hireDate, operator: 'LessThan', value: 'last Tuesday' }] }],
        'scopingCriteria[0].criteria[0].value',
      ],
      [
        'an attribute of another system',
        () => [{ type: 'All', criteria: [{ attributeId: ad.types.user.attributes.displayName, operator: 'Equals', value: 'x' }] }],
        'scopingCriteria[0].criteria[0].attributeId',
      ],
      [
        'an unselected attribute',
        () => [{ type: 'All', criteria: [{ attributeId: p().secret, operator: 'IsPresent' }] }],
        'scopingCriteria[0].criteria[0].attributeId',
      ],
      [
        'a bad group type deep down',
        () => [
          {
            type: 'All',
            criteria: [],
            groups: [{ type: 'Any', groups: [{ type: 'Every', criteria: [{ attributeId: p().grade, operator: 'IsPresent' }] }] }],
          },
        ],
        'scopingCriteria[0].groups[0].groups[0].type',
      ],
      ['an empty group', () => [{ type: 'All', criteria: [] }], 'scopingCriteria[0]'],
    ])('refuses %s with the path of the error', async (_label, criteria, path) => {
      const before = (await call('get', `${BASE}/${rule.id}/scoping-criteria`).expect(200)).body;
      const viaPut = await call('put', `${BASE}/${rule.id}/scoping-criteria`, { scopingCriteria: criteria() });
      expectValidation(viaPut, path);
      expectValidation(await call('put', `${BASE}/${rule.id}`, { scopingCriteria: criteria() }), path);
      expectValidation(await call('post', BASE, importRule({ scopingCriteria: criteria() })), path);
      expect((await call('get', `${BASE}/${rule.id}/scoping-criteria`).expect(200)).body).toEqual(before);
    });

    it('refuses criteria nested deeper than 5 levels', async () => {
      const nest = (depth: number): object =>
        depth === 1
          ? { type: 'All', criteria: [{ attributeId: p().grade, operator: 'IsPresent' }] }
          : { type: 'Any', criteria: [], groups: [nest(depth - 1)] };
      await call('put', `${BASE}/${rule.id}/scoping-criteria`, { scopingCriteria: [nest(5)] }).expect(200);
      expectValidation(
        await call('put', `${BASE}/${rule.id}/scoping-criteria`, { scopingCriteria: [nest(6)] }),
        'scopingCriteria[0].groups[0].groups[0].groups[0].groups[0].groups',
      );
    });

    it('tests metaverse attributes on export rules', async () => {
      const res = await call(
        'post',
        BASE,
        exportRule({
          scopingCriteria: [
            { type: 'All', criteria: [{ attributeId: user.attributes['Employee Type'], operator: 'Equals', value: 'Employee' }] },
          ],
        }),
      ).expect(201);
      expect(res.body.scopingCriteria[0].criteria[0].attributeId).toBe(user.attributes['Employee Type']);
      // An attribute of another metaverse type (ids of connected-system and metaverse attributes are separate sequences).
      expectValidation(
        await call(
          'post',
          BASE,
          exportRule({
            scopingCriteria: [{ type: 'All', criteria: [{ attributeId: group.attributes['Group Type'], operator: 'IsPresent' }] }],
          }),
        ),
        'scopingCriteria[0].criteria[0].attributeId',
      );
    });

    it('clears the criteria with an empty array (everything in scope) and requires the field', async () => {
      expectValidation(await call('put', `${BASE}/${rule.id}/scoping-criteria`, {}), 'scopingCriteria');
      const res = await call('put', `${BASE}/${rule.id}/scoping-criteria`, { scopingCriteria: [] }).expect(200);
      expect(res.body.scopingCriteria).toEqual([]);
      expect((await call('get', `${BASE}/${rule.id}`).expect(200)).body.hasScopingCriteria).toBe(false);
    });
  });

  describe('delete', () => {
    it('deletes a rule with its mappings and matching rules (204), records it and flags a full sync', async () => {
      const rule = (await call('post', BASE, importRule()).expect(201)).body;
      const mapping = (
        await call('post', `${BASE}/${rule.id}/mappings`, {
          targetMetaverseAttributeId: user.attributes['Last Name'],
          sources: [{ connectedSystemAttributeId: hr.types.person.attributes.lastName }],
        }).expect(201)
      ).body;
      await call('post', `${BASE}/${rule.id}/matching-rules`, {
        connectedSystemAttributeIds: [hr.types.person.attributes.employeeId],
        metaverseAttributeId: user.attributes['Employee ID'],
      }).expect(201);
      await takeFullSyncRequired(db, hr.id);
      const res = await call('delete', `${BASE}/${rule.id}`).expect(204);
      expect(res.text).toBe('');
      expect((await call('get', `${BASE}/${rule.id}`)).status).toBe(404);
      expect((await db.query(`SELECT count(*)::int AS n FROM sync_rule_mapping WHERE id = $1`, [mapping.id])).rows[0].n).toBe(0);
      expect((await db.query(`SELECT count(*)::int AS n FROM sync_rule_matching_rule WHERE sync_rule_id = $1`, [rule.id])).rows[0].n).toBe(
        0,
      );
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const [activity] = (await activities()).slice(-1);
      expect(activity).toMatchObject({
        target_operation_type: 'Delete',
        target_name: rule.name,
        sync_rule_id: rule.id,
        connected_system_id: hr.id,
      });
      expect(activity.details).toEqual({ direction: 'Import', mappingsRemoved: 1 });
      expect((await call('delete', `${BASE}/${rule.id}`)).status).toBe(404);
    });
  });
});
