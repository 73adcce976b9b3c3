import { authorisedRequest, HttpMethod } from '@meridian/testing';
import { Client } from 'pg';
import {
  ConnectedSystemFixture,
  createConnectedSystemFixture,
  metaverseType,
  takeFullSyncRequired,
} from './fixtures/connected-system.fixture';
import { startWebApp, WebHarness } from './harness';

const RULES = '/api/v1/synchronisation/sync-rules';
const PRIORITIES = '/api/v1/synchronisation/attribute-priorities';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Res {
  status: number;
  body: any;
}

function expectValidation(res: Res, ...fields: string[]): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  for (const field of fields) expect(Object.keys(res.body.validationErrors ?? {})).toContain(field);
}

function expectNotFound(res: Res): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
}

describe('sync rule mappings (spec 4.8) and attribute priority', () => {
  let h: WebHarness;
  let db: Client;
  let hr: ConnectedSystemFixture;
  let payroll: ConnectedSystemFixture;
  let ad: ConnectedSystemFixture;
  let user: { id: number; attributes: Record<string, number> };
  let group: { id: number; attributes: Record<string, number> };
  let importRule: any;
  let exportRule: any;

  const call = (method: HttpMethod, path: string, body?: object) => authorisedRequest(h.http, h.adminKey, method, path, body);
  const person = () => hr.types.person.attributes;
  const adUser = () => ad.types.user.attributes;
  const mappings = (ruleId: number) => `${RULES}/${ruleId}/mappings`;
  const createRule = async (body: Record<string, unknown>) =>
    (await call('post', RULES, { name: `Rule ${Math.random().toString(36).slice(2, 10)}`, ...body }).expect(201)).body;
  const lastActivity = async () => (await db.query(`SELECT * FROM activity ORDER BY created DESC, id DESC LIMIT 1`)).rows[0];

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
          'nickname',
          'department',
          { name: 'managerRef', type: 'Reference' },
          { name: 'proxyAddresses', plurality: 'Multi' },
          { name: 'salary', selected: false },
        ],
      },
      location: { attributes: ['code'] },
    });
    payroll = await createConnectedSystemFixture(db, 'Payroll', { worker: { attributes: ['workerId', 'preferredName', 'department'] } });
    ad = await createConnectedSystemFixture(db, 'Directory', {
      user: {
        attributes: [
          'sAMAccountName',
          'displayName',
          'givenName',
          { name: 'objectGUID', type: 'Guid', writability: 'ReadOnly' },
          { name: 'info', selected: false },
          { name: 'manager', type: 'Reference' },
        ],
      },
    });
    user = await metaverseType(db, 'User');
    group = await metaverseType(db, 'Group');
    importRule = await createRule({
      connectedSystemId: hr.id,
      direction: 'Import',
      connectedSystemObjectTypeId: hr.types.person.id,
      metaverseObjectTypeId: user.id,
      projectToMetaverse: true,
    });
    exportRule = await createRule({
      connectedSystemId: ad.id,
      direction: 'Export',
      connectedSystemObjectTypeId: ad.types.user.id,
      metaverseObjectTypeId: user.id,
      provisionToConnectedSystem: true,
    });
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('create (201) and sourceType', () => {
    it('creates an AttributeMapping with the fields of spec 2.12 and records it as a SyncRule Update', async () => {
      await takeFullSyncRequired(db, hr.id);
      const res = await call('post', mappings(importRule.id), {
        targetMetaverseAttributeId: user.attributes['First Name'],
        sources: [{ connectedSystemAttributeId: person().firstName }],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        syncRuleId: importRule.id,
        created: expect.stringMatching(ISO),
        targetMetaverseAttributeId: user.attributes['First Name'],
        targetMetaverseAttributeName: 'First Name',
        targetConnectedSystemAttributeId: null,
        targetConnectedSystemAttributeName: null,
        sourceType: 'AttributeMapping',
        sources: [
          {
            id: expect.any(Number),
            order: 0,
            connectedSystemAttributeId: person().firstName,
            connectedSystemAttributeName: 'firstName',
            metaverseAttributeId: null,
            metaverseAttributeName: null,
            expression: null,
          },
        ],
        priority: 1,
        nullIsValue: false,
        initialExportOnly: false,
        enabled: true,
      });
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const activity = await lastActivity();
      expect(activity).toMatchObject({
        target_type: 'SyncRule',
        target_operation_type: 'Update',
        target_id: String(importRule.id),
        target_name: importRule.name,
        sync_rule_id: importRule.id,
        connected_system_id: hr.id,
        message: `Mapping ${res.body.id} added: firstName → First Name`,
      });
      expect(activity.details).toEqual({
        mapping: { operation: 'Create', id: res.body.id, target: 'First Name', sourceType: 'AttributeMapping', sources: 1, priority: 1 },
      });
      expect((await call('get', `${mappings(importRule.id)}/${res.body.id}`).expect(200)).body).toEqual(res.body);
    });

    it('derives ExpressionMapping from one source with an expression (with or without an attribute) and stores the text as given', async () => {
      const withAttribute = await call('post', mappings(importRule.id), {
        targetMetaverseAttributeId: user.attributes['Last Name'],
        sources: [{ connectedSystemAttributeId: person().lastName, expression: 'Upper(cs["lastName"])' }],
      }).expect(201);
      expect(withAttribute.body).toMatchObject({
        sourceType: 'ExpressionMapping',
        sources: [{ connectedSystemAttributeName: 'lastName', expression: 'Upper(cs["lastName"])' }],
      });
      const expressionOnly = await call('post', mappings(importRule.id), {
        targetMetaverseAttributeId: user.attributes['Display Name'],
        sources: [{ expression: '  Trim(cs["firstName"]) + " " + Trim(cs["LASTNAME"])  ' }],
      }).expect(201);
      expect(expressionOnly.body).toMatchObject({
        sourceType: 'ExpressionMapping',
        sources: [{ connectedSystemAttributeId: null, expression: '  Trim(cs["firstName"]) + " " + Trim(cs["LASTNAME"])  ' }],
      });
      const constant = await call('post', mappings(importRule.id), {
        targetMetaverseAttributeId: user.attributes.Type,
        sources: [{ expression: '"Employee"' }],
      }).expect(201);
      expect(constant.body.sourceType).toBe('ExpressionMapping');
    });

    it('derives AdvancedMapping from several sources, returned by order', async () => {
      const res = await call('post', mappings(importRule.id), {
        targetMetaverseAttributeId: user.attributes.Nickname,
        sources: [
          { order: 2, connectedSystemAttributeId: person().firstName },
          { order: 1, connectedSystemAttributeId: person().nickname },
          { expression: 'mv["Nickname"]' },
        ],
      }).expect(201);
      expect(res.body.sourceType).toBe('AdvancedMapping');
      expect(res.body.sources.map((s: any) => [s.order, s.connectedSystemAttributeName ?? s.expression])).toEqual([
        [0, 'mv["Nickname"]'],
        [1, 'nickname'],
        [2, 'firstName'],
      ]);
    });

    it('creates export mappings from metaverse attributes to writable connected-system attributes', async () => {
      await takeFullSyncRequired(db, ad.id);
      const res = await call('post', mappings(exportRule.id), {
        targetConnectedSystemAttributeId: adUser().displayName,
        sources: [{ metaverseAttributeId: user.attributes['Display Name'] }],
        initialExportOnly: true,
      }).expect(201);
      expect(res.body).toMatchObject({
        targetConnectedSystemAttributeId: adUser().displayName,
        targetConnectedSystemAttributeName: 'displayName',
        targetMetaverseAttributeId: null,
        sourceType: 'AttributeMapping',
        sources: [
          {
            metaverseAttributeId: user.attributes['Display Name'],
            metaverseAttributeName: 'Display Name',
            connectedSystemAttributeId: null,
          },
        ],
        priority: null,
        initialExportOnly: true,
        nullIsValue: false,
      });
      expect(await takeFullSyncRequired(db, ad.id)).toBe(true);
      const expression = await call('post', mappings(exportRule.id), {
        targetConnectedSystemAttributeId: adUser().sAMAccountName,
        sources: [{ expression: 'Lower(Left(mv["First Name"], 1) + mv["Last Name"])' }],
      }).expect(201);
      expect(expression.body.sourceType).toBe('ExpressionMapping');
    });

    it('reads the references of export expressions against the target object type (cs) and the metaverse type (mv)', async () => {
      await call('post', mappings(exportRule.id), {
        targetConnectedSystemAttributeId: adUser().givenName,
        sources: [{ expression: 'Coalesce(cs["givenName"], mv["First Name"])' }],
      }).expect(201);
    });
  });

  describe('validation (400 VALIDATION_ERROR)', () => {
    const importBody = (overrides: Record<string, unknown> = {}) => ({
      targetMetaverseAttributeId: user.attributes.Department,
      sources: [{ connectedSystemAttributeId: person().department }],
      ...overrides,
    });
    const exportBody = (overrides: Record<string, unknown> = {}) => ({
      targetConnectedSystemAttributeId: adUser().sAMAccountName,
      sources: [{ metaverseAttributeId: user.attributes['Account Name'] }],
      ...overrides,
    });

    it('refuses a missing target, per direction', async () => {
      const imp = await call('post', mappings(importRule.id), { sources: [{ connectedSystemAttributeId: person().department }] });
      expectValidation(imp, 'targetMetaverseAttributeId');
      expect(imp.body.validationErrors.targetMetaverseAttributeId).toEqual(['targetMetaverseAttributeId is required for Import rules.']);
      const exp = await call('post', mappings(exportRule.id), { sources: [{ metaverseAttributeId: user.attributes['Account Name'] }] });
      expectValidation(exp, 'targetConnectedSystemAttributeId');
      expect(exp.body.validationErrors.targetConnectedSystemAttributeId).toEqual([
        'targetConnectedSystemAttributeId is required for Export rules.',
      ]);
      expectValidation(
        await call('post', mappings(importRule.id), importBody({ targetMetaverseAttributeId: null })),
        'targetMetaverseAttributeId',
      );
    });

    it('refuses the target of the other direction', async () => {
      const res = await call('post', mappings(importRule.id), importBody({ targetConnectedSystemAttributeId: adUser().displayName }));
      expectValidation(res, 'targetConnectedSystemAttributeId');
      expect(res.body.validationErrors.targetConnectedSystemAttributeId[0]).toMatch(/applies to Export rules only/);
      expectValidation(
        await call('post', mappings(exportRule.id), exportBody({ targetMetaverseAttributeId: user.attributes['Account Name'] })),
        'targetMetaverseAttributeId',
      );
    });

    it.each([
      [
        'an attribute of another metaverse object type',
        () => importBody({ targetMetaverseAttributeId: group.attributes['Group Type'] }),
        'targetMetaverseAttributeId',
        /not an attribute of the metaverse object type "User"/,
      ],
      [
        'a metaverse attribute that does not exist',
        () => importBody({ targetMetaverseAttributeId: 999999 }),
        'targetMetaverseAttributeId',
        /not an attribute/,
      ],
      [
        'a source attribute of another object type',
        () => importBody({ sources: [{ connectedSystemAttributeId: hr.types.location.attributes.code }] }),
        'sources[0].connectedSystemAttributeId',
        /not an attribute of the object type "person"/,
      ],
      [
        'a source attribute of another connected system',
        () => importBody({ sources: [{ connectedSystemAttributeId: adUser().displayName }] }),
        'sources[0].connectedSystemAttributeId',
        /not an attribute/,
      ],
      [
        'an unselected source attribute',
        () => importBody({ sources: [{ connectedSystemAttributeId: person().salary }] }),
        'sources[0].connectedSystemAttributeId',
        /not selected/,
      ],
      [
        'a metaverse source on an import rule',
        () => importBody({ sources: [{ metaverseAttributeId: user.attributes.Department }] }),
        'sources[0].metaverseAttributeId',
        /Import rules read connected system attributes/,
      ],
      ['empty sources', () => importBody({ sources: [] }), 'sources', /at least one source/],
      ['enabled as null', () => importBody({ enabled: null }), 'enabled', /true or false/],
      ['a priority past the largest id', () => importBody({ priority: 2 ** 31 }), 'priority', /at least 1/],
      ['missing sources', () => ({ targetMetaverseAttributeId: user.attributes.Department }), 'sources', /at least one source/],
      [
        'a source with neither an attribute nor an expression',
        () => importBody({ sources: [{ order: 1 }] }),
        'sources[0]',
        /needs connectedSystemAttributeId or an expression/,
      ],
      [
        'a source whose expression is blank',
        () => importBody({ sources: [{ connectedSystemAttributeId: person().department }, { expression: '   ' }] }),
        'sources[1]',
        /needs/,
      ],
      [
        'a negative order',
        () => importBody({ sources: [{ order: -1, connectedSystemAttributeId: person().department }] }),
        'sources.0.order',
        /must not be less than 0/,
      ],
      ['an expression that is not text', () => importBody({ sources: [{ expression: 42 }] }), 'sources.0.expression', /must be a string/],
      [
        'an unknown source field',
        () => importBody({ sources: [{ connectedSystemAttributeId: person().department, weight: 2 }] }),
        'sources.0.weight',
        /not a known field/,
      ],
      [
        'more than 20 sources',
        () => importBody({ sources: Array.from({ length: 21 }, () => ({ connectedSystemAttributeId: person().department })) }),
        'sources',
        /at most 20/,
      ],
      ['initialExportOnly on an import rule', () => importBody({ initialExportOnly: true }), 'initialExportOnly', /Export rules only/],
      ['a priority of 0', () => importBody({ priority: 0 }), 'priority', /must not be less than 1/],
      [
        'a reference copied to text',
        () => importBody({ sources: [{ connectedSystemAttributeId: person().managerRef }] }),
        'targetMetaverseAttributeId',
        /references flow only between Reference attributes/,
      ],
    ])('import rule: refuses %s', async (_label, body, field, message) => {
      const res = await call('post', mappings(importRule.id), body());
      expectValidation(res, field);
      expect(res.body.validationErrors[field].join(' ')).toMatch(message);
    });

    it.each([
      [
        'a target of another object type',
        () => exportBody({ targetConnectedSystemAttributeId: person().firstName }),
        'targetConnectedSystemAttributeId',
        /not an attribute of the object type "user"/,
      ],
      [
        'an unselected target',
        () => exportBody({ targetConnectedSystemAttributeId: adUser().info }),
        'targetConnectedSystemAttributeId',
        /not selected/,
      ],
      [
        'a read-only target',
        () => exportBody({ targetConnectedSystemAttributeId: adUser().objectGUID }),
        'targetConnectedSystemAttributeId',
        /read-only/,
      ],
      [
        'a connected-system source on an export rule',
        () => exportBody({ sources: [{ connectedSystemAttributeId: adUser().displayName }] }),
        'sources[0].connectedSystemAttributeId',
        /Export rules read metaverse attributes/,
      ],
      [
        'a metaverse source of another type',
        () => exportBody({ sources: [{ metaverseAttributeId: group.attributes['Group Scope'] }] }),
        'sources[0].metaverseAttributeId',
        /not an attribute of the metaverse object type "User"/,
      ],
      ['nullIsValue on an export rule', () => exportBody({ nullIsValue: true }), 'nullIsValue', /Import rules only/],
      ['a priority on an export rule', () => exportBody({ priority: 1 }), 'priority', /Import rules only/],
      [
        'a text attribute copied to a reference',
        () =>
          exportBody({
            targetConnectedSystemAttributeId: adUser().manager,
            sources: [{ metaverseAttributeId: user.attributes.Department }],
          }),
        'targetConnectedSystemAttributeId',
        /references flow only/,
      ],
    ])('export rule: refuses %s', async (_label, body, field, message) => {
      const res = await call('post', mappings(exportRule.id), body());
      expectValidation(res, field);
      expect(res.body.validationErrors[field].join(' ')).toMatch(message);
    });

    it('refuses an invalid expression with its position in details', async () => {
      const res = await call('post', mappings(importRule.id), importBody({ sources: [{ expression: 'Lower(cs["firstName"]' }] }));
      expectValidation(res, 'sources[0].expression');
      expect(res.body.validationErrors['sources[0].expression'][0]).toMatch(/\(line 1, column 22\)$/);
      expect(res.body.details).toMatchObject({
        field: 'sources[0].expression',
        code: 'Syntax',
        phase: 'compile',
        line: 1,
        column: 22,
        offset: 21,
        token: '',
      });
      expect(res.body.details.expressionErrors).toHaveLength(1);
    });

    it('refuses an unknown function with its position', async () => {
      const res = await call(
        'post',
        mappings(importRule.id),
        importBody({ sources: [{ connectedSystemAttributeId: person().department }, { expression: 'Trim(\n  Lowr(cs["department"]))' }] }),
      );
      expectValidation(res, 'sources[1].expression');
      expect(res.body.details).toMatchObject({
        field: 'sources[1].expression',
        code: 'UnknownFunction',
        line: 2,
        column: 3,
        token: 'Lowr',
      });
    });

    it("refuses accessors naming attributes that do not exist (cs against the rule's object type, mv against the metaverse type), each with its position", async () => {
      const res = await call(
        'post',
        mappings(importRule.id),
        importBody({ sources: [{ expression: 'cs["nope"] + mv["Nope"] + cs["firstName"] + mv["First Name"]' }] }),
      );
      expectValidation(res, 'sources[0].expression');
      expect(res.body.validationErrors['sources[0].expression']).toEqual([
        "Unknown connected system attribute 'nope' (line 1, column 1)",
        "Unknown metaverse attribute 'Nope' (line 1, column 14)",
      ]);
      expect(res.body.details).toMatchObject({ field: 'sources[0].expression', code: 'UnknownAttribute', column: 1, token: 'cs["nope"]' });
      expect(res.body.details.expressionErrors.map((e: any) => e.token)).toEqual(['cs["nope"]', 'mv["Nope"]']);
      // An attribute of another object type of the same system is unknown to this rule too.
      expectValidation(
        await call('post', mappings(importRule.id), importBody({ sources: [{ expression: 'cs["code"]' }] })),
        'sources[0].expression',
      );
      // Export rules: cs[...] reads the target object type, so HR attribute names are unknown there.
      const exp = await call('post', mappings(exportRule.id), exportBody({ sources: [{ expression: 'cs["firstName"]' }] }));
      expectValidation(exp, 'sources[0].expression');
      expect(exp.body.details).toMatchObject({ code: 'UnknownAttribute', token: 'cs["firstName"]' });
    });

    it('refuses an expression reading an unselected attribute', async () => {
      const res = await call('post', mappings(importRule.id), importBody({ sources: [{ expression: 'cs["salary"]' }] }));
      expectValidation(res, 'sources[0].expression');
      expect(res.body.validationErrors['sources[0].expression'][0]).toMatch(/'salary' is not selected for synchronisation/);
    });

    it('reports field errors and expression errors together', async () => {
      const res = await call('post', mappings(importRule.id), { sources: [{ expression: '1 +' }, { metaverseAttributeId: 1 }] });
      expectValidation(res, 'targetMetaverseAttributeId', 'sources[0].expression', 'sources[1].metaverseAttributeId');
      expect(res.body.details.field).toBe('sources[0].expression');
    });

    it('refuses a second mapping to the same target in one rule', async () => {
      const first = await call('post', mappings(importRule.id), importBody()).expect(201);
      const res = await call('post', mappings(importRule.id), importBody());
      expectValidation(res, 'targetMetaverseAttributeId');
      expect(res.body.validationErrors.targetMetaverseAttributeId[0]).toMatch(new RegExp(`already has a mapping \\(${first.body.id}\\)`));
    });

    it('stores nothing when refused', async () => {
      const before = (await call('get', mappings(importRule.id)).expect(200)).body.length;
      await call(
        'post',
        mappings(importRule.id),
        importBody({ targetMetaverseAttributeId: user.attributes.Company, sources: [{ expression: 'oops(' }] }),
      ).expect(400);
      expect((await call('get', mappings(importRule.id)).expect(200)).body).toHaveLength(before);
    });
  });

  describe('list, get, update, delete', () => {
    let mapping: any;

    beforeAll(async () => {
      mapping = (
        await call('post', mappings(importRule.id), {
          targetMetaverseAttributeId: user.attributes['Job Title'],
          sources: [{ connectedSystemAttributeId: person().department }],
        }).expect(201)
      ).body;
    });

    it('lists the mappings of a rule (array, 200)', async () => {
      const res = await call('get', mappings(importRule.id)).expect(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.map((m: any) => m.id)).toContain(mapping.id);
      expect(res.body.every((m: any) => m.syncRuleId === importRule.id)).toBe(true);
      const detail = (await call('get', `${RULES}/${importRule.id}`).expect(200)).body;
      expect(detail.mappings).toEqual(res.body);
      expect(detail.mappingCount).toBe(res.body.length);
    });

    it('answers 404 for an absent rule, an absent mapping and a mapping of another rule; 400 for malformed ids', async () => {
      const exportMapping = (await call('get', mappings(exportRule.id)).expect(200)).body[0];
      expectNotFound(await call('get', mappings(999999)));
      expectNotFound(await call('post', mappings(999999), { targetMetaverseAttributeId: 1, sources: [{ expression: '1' }] }));
      expectNotFound(await call('get', `${mappings(999999)}/${mapping.id}`));
      expectNotFound(await call('get', `${mappings(importRule.id)}/999999`));
      const foreign = await call('get', `${mappings(importRule.id)}/${exportMapping.id}`);
      expectNotFound(foreign);
      expect(foreign.body.message).toBe(`Mapping ${exportMapping.id} does not exist in sync rule ${importRule.id}.`);
      expectNotFound(await call('put', `${mappings(importRule.id)}/${exportMapping.id}`, { enabled: false }));
      expectNotFound(await call('delete', `${mappings(importRule.id)}/${exportMapping.id}`));
      expectValidation(await call('get', `${mappings(importRule.id)}/abc`), 'mappingId');
      expectValidation(await call('get', `${mappings(0)}`), 'syncRuleId');
    });

    it('updates a mapping partially: sources replace all, sourceType follows, the change is recorded', async () => {
      await takeFullSyncRequired(db, hr.id);
      const res = await call('put', `${mappings(importRule.id)}/${mapping.id}`, {
        sources: [{ expression: 'Upper(cs["department"])' }, { connectedSystemAttributeId: person().nickname, order: 1 }],
        nullIsValue: true,
      }).expect(200);
      expect(res.body).toMatchObject({
        id: mapping.id,
        sourceType: 'AdvancedMapping',
        nullIsValue: true,
        targetMetaverseAttributeName: 'Job Title',
        priority: mapping.priority,
      });
      expect(res.body.sources.map((s: any) => s.expression ?? s.connectedSystemAttributeName)).toEqual([
        'Upper(cs["department"])',
        'nickname',
      ]);
      expect(res.body.sources.every((s: any) => !mapping.sources.some((old: any) => old.id === s.id))).toBe(true);
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const activity = await lastActivity();
      expect(activity.details.mapping).toMatchObject({
        operation: 'Update',
        id: mapping.id,
        changed: ['nullIsValue', 'sources'],
        sourceType: 'AdvancedMapping',
      });
      const back = await call('put', `${mappings(importRule.id)}/${mapping.id}`, {
        sources: [{ connectedSystemAttributeId: person().department }],
      }).expect(200);
      expect(back.body.sourceType).toBe('AttributeMapping');
    });

    it('records nothing when an update changes nothing', async () => {
      const current = (await call('get', `${mappings(importRule.id)}/${mapping.id}`).expect(200)).body;
      const before = (await lastActivity()).id;
      await call('put', `${mappings(importRule.id)}/${mapping.id}`, {
        sources: current.sources.map((s: any) => ({ order: s.order, connectedSystemAttributeId: s.connectedSystemAttributeId })),
        enabled: current.enabled,
      }).expect(200);
      expect((await lastActivity()).id).toBe(before);
    });

    it('validates updates like creates', async () => {
      expectValidation(await call('put', `${mappings(importRule.id)}/${mapping.id}`, { sources: [] }), 'sources');
      const bad = await call('put', `${mappings(importRule.id)}/${mapping.id}`, { sources: [{ expression: 'cs["nope"]' }] });
      expectValidation(bad, 'sources[0].expression');
      expect(bad.body.details).toMatchObject({ code: 'UnknownAttribute', line: 1, column: 1 });
      expectValidation(
        await call('put', `${mappings(importRule.id)}/${mapping.id}`, { targetMetaverseAttributeId: null }),
        'targetMetaverseAttributeId',
      );
      expectValidation(
        await call('put', `${mappings(importRule.id)}/${mapping.id}`, { targetMetaverseAttributeId: user.attributes['First Name'] }),
        'targetMetaverseAttributeId',
      );
      expectValidation(await call('put', `${mappings(importRule.id)}/${mapping.id}`, { initialExportOnly: true }), 'initialExportOnly');
    });

    it('deletes a mapping (204), records it and flags a full sync', async () => {
      const doomed = (
        await call('post', mappings(importRule.id), {
          targetMetaverseAttributeId: user.attributes.Office,
          sources: [{ expression: '"HQ"' }],
        }).expect(201)
      ).body;
      await takeFullSyncRequired(db, hr.id);
      const res = await call('delete', `${mappings(importRule.id)}/${doomed.id}`).expect(204);
      expect(res.text).toBe('');
      expectNotFound(await call('get', `${mappings(importRule.id)}/${doomed.id}`));
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const activity = await lastActivity();
      expect(activity).toMatchObject({
        target_type: 'SyncRule',
        target_operation_type: 'Update',
        sync_rule_id: importRule.id,
        message: `Mapping ${doomed.id} removed: expression → Office`,
      });
      expect(activity.details.mapping).toMatchObject({ operation: 'Delete', id: doomed.id });
      expectNotFound(await call('delete', `${mappings(importRule.id)}/${doomed.id}`));
    });
  });

  describe('attribute priority (DOMAIN.md §2.2.6)', () => {
    let payrollRule: any;
    let secondHrRule: any;
    const preferred = () => user.attributes['Preferred Language'];
    const contributors = async () =>
      (await call('get', `${PRIORITIES}?metaverseObjectTypeId=${user.id}&metaverseAttributeId=${preferred()}`).expect(200)).body;
    let hrMapping: any;
    let payrollMapping: any;
    let topMapping: any;

    beforeAll(async () => {
      payrollRule = await createRule({
        connectedSystemId: payroll.id,
        direction: 'Import',
        connectedSystemObjectTypeId: payroll.types.worker.id,
        metaverseObjectTypeId: user.id,
      });
      secondHrRule = await createRule({
        connectedSystemId: hr.id,
        direction: 'Import',
        connectedSystemObjectTypeId: hr.types.person.id,
        metaverseObjectTypeId: user.id,
      });
    });

    it('gives each new import mapping of a metaverse attribute the next priority, or the position asked for', async () => {
      hrMapping = (
        await call('post', mappings(importRule.id), {
          targetMetaverseAttributeId: preferred(),
          sources: [{ connectedSystemAttributeId: person().nickname }],
        }).expect(201)
      ).body;
      payrollMapping = (
        await call('post', mappings(payrollRule.id), {
          targetMetaverseAttributeId: preferred(),
          sources: [{ connectedSystemAttributeId: payroll.types.worker.attributes.preferredName }],
          nullIsValue: true,
        }).expect(201)
      ).body;
      expect([hrMapping.priority, payrollMapping.priority]).toEqual([1, 2]);
      await takeFullSyncRequired(db, hr.id);
      await takeFullSyncRequired(db, payroll.id);
      topMapping = (
        await call('post', mappings(secondHrRule.id), {
          targetMetaverseAttributeId: preferred(),
          sources: [{ expression: '"en"' }],
          priority: 1,
        }).expect(201)
      ).body;
      expect(topMapping.priority).toBe(1);
      expect(await takeFullSyncRequired(db, payroll.id)).toBe(true);
      const list = await contributors();
      expect(list).toEqual([
        {
          metaverseObjectTypeId: user.id,
          metaverseObjectTypeName: 'User',
          metaverseAttributeId: preferred(),
          metaverseAttributeName: 'Preferred Language',
          mappingId: topMapping.id,
          syncRuleId: secondHrRule.id,
          syncRuleName: secondHrRule.name,
          syncRuleEnabled: true,
          mappingEnabled: true,
          connectedSystemId: hr.id,
          connectedSystemName: 'HR',
          priority: 1,
          nullIsValue: false,
        },
        expect.objectContaining({
          mappingId: hrMapping.id,
          syncRuleId: importRule.id,
          connectedSystemName: 'HR',
          priority: 2,
          nullIsValue: false,
        }),
        expect.objectContaining({
          mappingId: payrollMapping.id,
          syncRuleId: payrollRule.id,
          connectedSystemId: payroll.id,
          connectedSystemName: 'Payroll',
          priority: 3,
          nullIsValue: true,
        }),
      ]);
      expect((await call('get', `${mappings(importRule.id)}/${hrMapping.id}`).expect(200)).body.priority).toBe(2);
    });

    it('sets the order as a whole, renumbering 1..n, recording it and flagging the systems whose priority changed', async () => {
      await takeFullSyncRequired(db, hr.id);
      await takeFullSyncRequired(db, payroll.id);
      const res = await call('put', PRIORITIES, {
        metaverseObjectTypeId: user.id,
        metaverseAttributeId: preferred(),
        mappingIds: [payrollMapping.id, topMapping.id, hrMapping.id],
      }).expect(200);
      expect(res.body.map((c: any) => [c.mappingId, c.priority])).toEqual([
        [payrollMapping.id, 1],
        [topMapping.id, 2],
        [hrMapping.id, 3],
      ]);
      expect(await contributors()).toEqual(res.body);
      expect(await takeFullSyncRequired(db, payroll.id)).toBe(true);
      expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
      const activity = await lastActivity();
      expect(activity).toMatchObject({
        target_type: 'MetaverseAttribute',
        target_operation_type: 'Update',
        target_name: 'Preferred Language',
        target_context: 'User',
        message: 'Attribute priority changed',
      });
      expect(activity.details.priority.map((p: any) => p.mappingId)).toEqual([payrollMapping.id, topMapping.id, hrMapping.id]);
      const again = (await lastActivity()).id;
      await call('put', PRIORITIES, {
        metaverseObjectTypeId: user.id,
        metaverseAttributeId: preferred(),
        mappingIds: [payrollMapping.id, topMapping.id, hrMapping.id],
      }).expect(200);
      expect((await lastActivity()).id).toBe(again);
    });

    it('moves a mapping through PUT …/mappings/{id} with priority', async () => {
      await call('put', `${mappings(importRule.id)}/${hrMapping.id}`, { priority: 1 }).expect(200);
      expect((await contributors()).map((c: any) => c.mappingId)).toEqual([hrMapping.id, payrollMapping.id, topMapping.id]);
    });

    it.each([
      ['a missing mapping', () => [payrollMapping.id, hrMapping.id], /missing/],
      ['an extra mapping', () => [payrollMapping.id, hrMapping.id, topMapping.id, 999999], /999999, which is not one of/],
      ['a duplicate', () => [payrollMapping.id, hrMapping.id, topMapping.id, hrMapping.id], /more than once/],
      ['a non-integer', () => [payrollMapping.id, hrMapping.id, topMapping.id, 'x'], /x, which is not one of/],
    ])('refuses a list with %s', async (_label, ids, message) => {
      const before = await contributors();
      const res = await call('put', PRIORITIES, { metaverseObjectTypeId: user.id, metaverseAttributeId: preferred(), mappingIds: ids() });
      expectValidation(res, 'mappingIds');
      expect(res.body.validationErrors.mappingIds.join(' ')).toMatch(message);
      expect(await contributors()).toEqual(before);
    });

    it('refuses an export mapping in place of a contributor (it never contributes a metaverse attribute)', async () => {
      const exportMapping = (await call('get', mappings(exportRule.id)).expect(200)).body[0];
      const res = await call('put', PRIORITIES, {
        metaverseObjectTypeId: user.id,
        metaverseAttributeId: preferred(),
        mappingIds: [payrollMapping.id, hrMapping.id, exportMapping.id],
      });
      expectValidation(res, 'mappingIds');
      expect(res.body.validationErrors.mappingIds.join(' ')).toMatch(
        new RegExp(`${exportMapping.id}, which is not one of.*missing: ${topMapping.id}`),
      );
    });

    it('refuses unknown types and attributes, and attributes nobody contributes', async () => {
      expectValidation(
        await call('put', PRIORITIES, { metaverseObjectTypeId: 999999, metaverseAttributeId: preferred(), mappingIds: [] }),
        'metaverseObjectTypeId',
      );
      expectValidation(
        await call('put', PRIORITIES, {
          metaverseObjectTypeId: user.id,
          metaverseAttributeId: group.attributes['Group Scope'],
          mappingIds: [],
        }),
        'metaverseAttributeId',
      );
      const nobody = await call('put', PRIORITIES, {
        metaverseObjectTypeId: user.id,
        metaverseAttributeId: user.attributes.Pronouns,
        mappingIds: [],
      });
      expectValidation(nobody, 'mappingIds');
      expect(nobody.body.validationErrors.mappingIds[0]).toMatch(/No import mapping contributes "Pronouns" of "User"/);
      expectValidation(await call('put', PRIORITIES, {}), 'metaverseObjectTypeId', 'metaverseAttributeId', 'mappingIds');
      expectValidation(await call('get', `${PRIORITIES}?metaverseObjectTypeId=999999`), 'metaverseObjectTypeId');
      expectValidation(await call('get', `${PRIORITIES}?metaverseAttributeId=abc`), 'metaverseAttributeId');
    });

    it('lists every contributor without filters, grouped by type and attribute in priority order', async () => {
      const all = (await call('get', PRIORITIES).expect(200)).body;
      expect(all.every((c: any) => c.metaverseObjectTypeName === 'User')).toBe(true);
      const preferredRows = all.filter((c: any) => c.metaverseAttributeId === preferred());
      expect(preferredRows.map((c: any) => c.priority)).toEqual([1, 2, 3]);
      expect(all.some((c: any) => c.mappingId === hrMapping.id)).toBe(true);
      const byAttribute = (await call('get', `${PRIORITIES}?metaverseAttributeId=${user.attributes['First Name']}`).expect(200)).body;
      expect(byAttribute.map((c: any) => c.metaverseAttributeName)).toEqual(['First Name']);
    });

    it('closes the gap when a contributor is deleted, moves to another attribute, or its rule is deleted', async () => {
      await call('delete', `${mappings(payrollRule.id)}/${payrollMapping.id}`).expect(204);
      expect((await contributors()).map((c: any) => [c.mappingId, c.priority])).toEqual([
        [hrMapping.id, 1],
        [topMapping.id, 2],
      ]);
      const moved = await call('put', `${mappings(importRule.id)}/${hrMapping.id}`, {
        targetMetaverseAttributeId: user.attributes['Middle Name'],
      }).expect(200);
      expect(moved.body).toMatchObject({ targetMetaverseAttributeName: 'Middle Name', priority: 1 });
      expect((await contributors()).map((c: any) => [c.mappingId, c.priority])).toEqual([[topMapping.id, 1]]);
      await call('post', mappings(payrollRule.id), {
        targetMetaverseAttributeId: preferred(),
        sources: [{ connectedSystemAttributeId: payroll.types.worker.attributes.preferredName }],
      }).expect(201);
      expect((await contributors()).map((c: any) => c.priority)).toEqual([1, 2]);
      await call('delete', `${RULES}/${secondHrRule.id}`).expect(204);
      expect((await contributors()).map((c: any) => [c.syncRuleId, c.priority])).toEqual([[payrollRule.id, 1]]);
    });
  });
});
