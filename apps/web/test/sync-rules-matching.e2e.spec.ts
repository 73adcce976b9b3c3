import { authorisedRequest, HttpMethod } from '@meridian/testing';
import { Client } from 'pg';
import {
  ConnectedSystemFixture,
  createConnectedSystemFixture,
  createMetaverseAttributeFixture,
  metaverseType,
  takeFullSyncRequired,
} from './fixtures/connected-system.fixture';
import { startWebApp, WebHarness } from './harness';

const RULES = '/api/v1/synchronisation/sync-rules';

interface Res {
  status: number;
  body: any;
}

function expectValidation(res: Res, ...fields: string[]): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  for (const field of fields) expect(Object.keys(res.body.validationErrors ?? {})).toContain(field);
}

describe('matching rules of import sync rules', () => {
  let h: WebHarness;
  let db: Client;
  let hr: ConnectedSystemFixture;
  let ad: ConnectedSystemFixture;
  let user: { id: number; attributes: Record<string, number> };
  let group: { id: number; attributes: Record<string, number> };
  let aliasesId: number;
  let rule: any;
  let exportRule: any;

  const call = (method: HttpMethod, path: string, body?: object) => authorisedRequest(h.http, h.adminKey, method, path, body);
  const matching = (ruleId: number) => `${RULES}/${ruleId}/matching-rules`;
  const person = () => hr.types.person.attributes;
  const lastActivity = async () => (await db.query(`SELECT * FROM activity ORDER BY created DESC, id DESC LIMIT 1`)).rows[0];
  const lookups = async (attributeId: number) =>
    (
      await db.query(
        `SELECT value_normalised AS v, object_id AS o FROM metaverse_object_lookup WHERE attribute_id = $1 ORDER BY value_normalised, object_id`,
        [attributeId],
      )
    ).rows;
  const isIndexed = async (attributeId: number) =>
    (await db.query(`SELECT is_indexed FROM metaverse_attribute WHERE id = $1`, [attributeId])).rows[0].is_indexed;
  /** A metaverse object as the synchronisation engine stores it: values in JSONB by attribute id, no lookup rows. */
  const insertObject = async (typeId: number, values: Record<number, unknown[]>) => {
    const document = Object.fromEntries(Object.entries(values).map(([id, vs]) => [id, vs.map((v) => ({ v, s: hr.id }))]));
    return (
      await db.query(`INSERT INTO metaverse_object (type_id, origin, attributes) VALUES ($1, 'Projected', $2) RETURNING id`, [
        typeId,
        document,
      ])
    ).rows[0].id as string;
  };

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    hr = await createConnectedSystemFixture(db, 'HR', {
      person: {
        attributes: [
          { name: 'employeeId', isExternalId: true },
          'email',
          'mail2',
          { name: 'employeeNumber', type: 'Integer' },
          'nickname',
          { name: 'active', type: 'Boolean' },
          { name: 'managerRef', type: 'Reference' },
          { name: 'hidden', selected: false },
        ],
      },
      other: { attributes: ['code'] },
    });
    ad = await createConnectedSystemFixture(db, 'Directory', { user: { attributes: ['sAMAccountName'] } });
    aliasesId = await createMetaverseAttributeFixture(db, 'Aliases', 'String', ['User'], 'Multi');
    user = await metaverseType(db, 'User');
    group = await metaverseType(db, 'Group');
    rule = (
      await call('post', RULES, {
        name: 'HR in',
        connectedSystemId: hr.id,
        direction: 'Import',
        connectedSystemObjectTypeId: hr.types.person.id,
        metaverseObjectTypeId: user.id,
      }).expect(201)
    ).body;
    exportRule = (
      await call('post', RULES, {
        name: 'AD out',
        connectedSystemId: ad.id,
        direction: 'Export',
        connectedSystemObjectTypeId: ad.types.user.id,
        metaverseObjectTypeId: user.id,
      }).expect(201)
    ).body;
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  it('creates a matching rule (201) on an indexed attribute without touching the index', async () => {
    expect(await isIndexed(user.attributes['Employee ID'])).toBe(true);
    await takeFullSyncRequired(db, hr.id);
    const res = await call('post', matching(rule.id), {
      connectedSystemAttributeIds: [person().employeeId],
      metaverseAttributeId: user.attributes['Employee ID'],
    }).expect(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      syncRuleId: rule.id,
      order: 1,
      connectedSystemAttributeIds: [person().employeeId],
      connectedSystemAttributes: [{ id: person().employeeId, name: 'employeeId' }],
      metaverseAttributeId: user.attributes['Employee ID'],
      metaverseAttributeName: 'Employee ID',
      caseSensitive: false,
      created: expect.any(String),
    });
    expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
    const activity = await lastActivity();
    expect(activity).toMatchObject({
      target_type: 'ObjectMatchingRule',
      target_operation_type: 'Create',
      target_id: String(res.body.id),
      target_name: 'employeeId → Employee ID',
      target_context: 'HR in',
      sync_rule_id: rule.id,
      connected_system_id: hr.id,
    });
    expect(activity.details).not.toHaveProperty('indexedMetaverseAttribute');
  });

  it('indexes a metaverse attribute that was not and backfills its lookup rows from every object (lower-cased, 512 characters)', async () => {
    const nickname = user.attributes.Nickname;
    expect(await isIndexed(nickname)).toBe(false);
    const long = `Z${'x'.repeat(600)}`;
    const ada = await insertObject(user.id, { [nickname]: ['Ada'], [user.attributes['Display Name']]: ['Ada Lovelace'] });
    const grace = await insertObject(user.id, { [nickname]: ['GRACE'] });
    const longOne = await insertObject(user.id, { [nickname]: [long] });
    await insertObject(user.id, { [user.attributes['Display Name']]: ['No nickname'] });
    await insertObject(user.id, { [nickname]: [null] });
    const groupObject = await insertObject(group.id, { [nickname]: ['groupie'] });
    expect(await lookups(nickname)).toEqual([]);

    const res = await call('post', matching(rule.id), {
      connectedSystemAttributeIds: [person().nickname],
      metaverseAttributeId: nickname,
      caseSensitive: true,
    }).expect(201);
    expect(res.body).toMatchObject({ order: 2, caseSensitive: true, metaverseAttributeName: 'Nickname' });
    expect(await isIndexed(nickname)).toBe(true);
    expect(await lookups(nickname)).toEqual(
      [
        { v: 'ada', o: ada },
        { v: 'grace', o: grace },
        { v: 'groupie', o: groupObject },
        { v: long.toLowerCase().slice(0, 512), o: longOne },
      ].sort((a, b) => (a.v < b.v ? -1 : 1)),
    );
    expect((await lastActivity()).details.indexedMetaverseAttribute).toEqual({ id: nickname, name: 'Nickname', lookupRowsWritten: 4 });

    // A second rule on the same attribute finds it indexed already.
    await call('post', matching(rule.id), {
      connectedSystemAttributeIds: [person().email, person().mail2],
      metaverseAttributeId: nickname,
    }).expect(201);
    expect((await lastActivity()).details).not.toHaveProperty('indexedMetaverseAttribute');
  });

  it('backfills numbers and every value of a multi-valued attribute', async () => {
    const number = user.attributes['Employee Number'];
    const a = await insertObject(user.id, { [number]: [42], [aliasesId]: ['A.One', 'a.two', 'A.ONE'] });
    const b = await insertObject(user.id, { [number]: [7] });
    await call('post', matching(rule.id), { connectedSystemAttributeIds: [person().employeeNumber], metaverseAttributeId: number }).expect(
      201,
    );
    expect(await lookups(number)).toEqual([
      { v: '42', o: a },
      { v: '7', o: b },
    ]);
    await call('post', matching(rule.id), { connectedSystemAttributeIds: [person().email], metaverseAttributeId: aliasesId }).expect(201);
    expect(await lookups(aliasesId)).toEqual([
      { v: 'a.one', o: a },
      { v: 'a.two', o: a },
    ]);
  });

  it('lists matching rules in order, also in the rule detail', async () => {
    const list = (await call('get', matching(rule.id)).expect(200)).body;
    expect(list.map((r: any) => r.order)).toEqual([1, 2, 3, 4, 5]);
    expect(list[2].connectedSystemAttributes.map((a: any) => a.name)).toEqual(['email', 'mail2']);
    const detail = (await call('get', `${RULES}/${rule.id}`).expect(200)).body;
    expect(detail.matchingRules).toEqual(list);
    expect(detail.matchingRuleCount).toBe(5);
  });

  it('inserts at the position asked for and reorders the rest', async () => {
    const res = await call('post', matching(rule.id), {
      connectedSystemAttributeIds: [person().mail2],
      metaverseAttributeId: user.attributes.Email,
      order: 1,
    }).expect(201);
    const list = (await call('get', matching(rule.id)).expect(200)).body;
    expect(list[0].id).toBe(res.body.id);
    expect(list.map((r: any) => r.order)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it.each([
    [
      'no attributes',
      () => ({ connectedSystemAttributeIds: [], metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds',
      /at least one/,
    ],
    ['missing attributes', () => ({ metaverseAttributeId: user.attributes.Email }), 'connectedSystemAttributeIds', /at least one/],
    [
      'an attribute id of 0',
      () => ({ connectedSystemAttributeIds: [0], metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds',
      /positive whole number/,
    ],
    [
      'more than 10 attributes',
      () => ({ connectedSystemAttributeIds: Array.from({ length: 11 }, (_, i) => i + 1), metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds',
      /at most 10/,
    ],
    [
      'an attribute of another object type',
      () => ({ connectedSystemAttributeIds: [hr.types.other.attributes.code], metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds[0]',
      /not an attribute of the object type "person"/,
    ],
    [
      'an attribute of another system',
      () => ({
        connectedSystemAttributeIds: [person().email, ad.types.user.attributes.sAMAccountName],
        metaverseAttributeId: user.attributes.Email,
      }),
      'connectedSystemAttributeIds[1]',
      /not an attribute/,
    ],
    [
      'an unselected attribute',
      () => ({ connectedSystemAttributeIds: [person().hidden], metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds[0]',
      /not selected/,
    ],
    [
      'a Boolean attribute',
      () => ({ connectedSystemAttributeIds: [person().active], metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds[0]',
      /is Boolean/,
    ],
    [
      'a reference attribute',
      () => ({ connectedSystemAttributeIds: [person().managerRef], metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds[0]',
      /is Reference/,
    ],
    [
      'the same attribute twice',
      () => ({ connectedSystemAttributeIds: [person().email, person().email], metaverseAttributeId: user.attributes.Email }),
      'connectedSystemAttributeIds[1]',
      /more than once/,
    ],
    [
      'a metaverse attribute of another type',
      () => ({ connectedSystemAttributeIds: [person().email], metaverseAttributeId: group.attributes['Group Type'] }),
      'metaverseAttributeId',
      /not an attribute of the metaverse object type "User"/,
    ],
    [
      'a Boolean metaverse attribute',
      () => ({ connectedSystemAttributeIds: [person().email], metaverseAttributeId: user.attributes['Account Enabled'] }),
      'metaverseAttributeId',
      /can be indexed/,
    ],
    [
      'a DateTime metaverse attribute',
      () => ({ connectedSystemAttributeIds: [person().email], metaverseAttributeId: user.attributes['Employee Start Date'] }),
      'metaverseAttributeId',
      /can be indexed/,
    ],
    [
      'a Reference metaverse attribute',
      () => ({ connectedSystemAttributeIds: [person().email], metaverseAttributeId: user.attributes.Manager }),
      'metaverseAttributeId',
      /can be indexed/,
    ],
    [
      'a missing metaverse attribute',
      () => ({ connectedSystemAttributeIds: [person().email] }),
      'metaverseAttributeId',
      /positive whole number/,
    ],
    [
      'caseSensitive that is not a boolean',
      () => ({ connectedSystemAttributeIds: [person().email], metaverseAttributeId: user.attributes.Email, caseSensitive: 'no' }),
      'caseSensitive',
      /boolean/,
    ],
    [
      'order 0',
      () => ({ connectedSystemAttributeIds: [person().email], metaverseAttributeId: user.attributes.Email, order: 0 }),
      'order',
      /less than 1/,
    ],
    [
      'a rule that exists already',
      () => ({ connectedSystemAttributeIds: [person().employeeId], metaverseAttributeId: user.attributes['Employee ID'] }),
      'metaverseAttributeId',
      /already matches these attributes/,
    ],
  ])('refuses %s (400 naming the field)', async (_label, body, field, message) => {
    const before = (await call('get', matching(rule.id)).expect(200)).body;
    const res = await call('post', matching(rule.id), body());
    expectValidation(res, field);
    expect(res.body.validationErrors[field].join(' ')).toMatch(message);
    expect((await call('get', matching(rule.id)).expect(200)).body).toEqual(before);
  });

  it('refuses matching rules on export rules (400 BAD_REQUEST) and lists none for them', async () => {
    expect((await call('get', matching(exportRule.id)).expect(200)).body).toEqual([]);
    const attempts = [
      await call('post', matching(exportRule.id), {
        connectedSystemAttributeIds: [ad.types.user.attributes.sAMAccountName],
        metaverseAttributeId: user.attributes['Account Name'],
      }),
      await call('put', `${matching(exportRule.id)}/1`, { caseSensitive: true }),
      await call('delete', `${matching(exportRule.id)}/1`),
      await call('put', `${matching(exportRule.id)}/order`, { matchingRuleIds: [] }),
    ];
    for (const res of attempts) {
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
      expect(res.body.message).toMatch(/Export rule: matching rules .* belong to Import rules/);
    }
  });

  it('updates a matching rule partially, indexing a newly targeted attribute, and records it', async () => {
    const target = (await call('get', matching(rule.id)).expect(200)).body.find((r: any) => r.metaverseAttributeName === 'Email');
    await takeFullSyncRequired(db, hr.id);
    const res = await call('put', `${matching(rule.id)}/${target.id}`, {
      caseSensitive: true,
      metaverseAttributeId: user.attributes['Job Title'],
      order: 3,
    }).expect(200);
    expect(res.body).toMatchObject({
      id: target.id,
      caseSensitive: true,
      metaverseAttributeName: 'Job Title',
      order: 3,
      connectedSystemAttributeIds: target.connectedSystemAttributeIds,
    });
    expect(await isIndexed(user.attributes['Job Title'])).toBe(true);
    expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
    const activity = await lastActivity();
    expect(activity).toMatchObject({ target_type: 'ObjectMatchingRule', target_operation_type: 'Update', target_id: String(target.id) });
    expect(activity.details).toMatchObject({
      changed: ['metaverseAttributeId', 'caseSensitive', 'order'],
      indexedMetaverseAttribute: { name: 'Job Title', lookupRowsWritten: 0 },
    });
    expect((await call('get', matching(rule.id)).expect(200)).body.map((r: any) => r.order)).toEqual([1, 2, 3, 4, 5, 6]);

    const before = (await lastActivity()).id;
    await call('put', `${matching(rule.id)}/${target.id}`, { caseSensitive: true }).expect(200);
    expect((await lastActivity()).id).toBe(before);
    expectValidation(
      await call('put', `${matching(rule.id)}/${target.id}`, { connectedSystemAttributeIds: [] }),
      'connectedSystemAttributeIds',
    );
    expectValidation(
      await call('put', `${matching(rule.id)}/${target.id}`, { metaverseAttributeId: user.attributes['Account Enabled'] }),
      'metaverseAttributeId',
    );
  });

  it('sets the whole order (PUT …/matching-rules/order), refusing incomplete lists', async () => {
    const ids = (await call('get', matching(rule.id)).expect(200)).body.map((r: any) => r.id);
    const reversed = [...ids].reverse();
    await takeFullSyncRequired(db, hr.id);
    const res = await call('put', `${matching(rule.id)}/order`, { matchingRuleIds: reversed }).expect(200);
    expect(res.body.map((r: any) => [r.id, r.order])).toEqual(reversed.map((id: number, i: number) => [id, i + 1]));
    expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
    expect(await lastActivity()).toMatchObject({
      target_type: 'ObjectMatchingRule',
      target_operation_type: 'Update',
      message: 'Matching rules reordered',
      sync_rule_id: rule.id,
    });
    const missing = await call('put', `${matching(rule.id)}/order`, { matchingRuleIds: reversed.slice(1) });
    expectValidation(missing, 'matchingRuleIds');
    expect(missing.body.validationErrors.matchingRuleIds.join(' ')).toMatch(new RegExp(`missing: ${reversed[0]}`));
    expectValidation(await call('put', `${matching(rule.id)}/order`, { matchingRuleIds: [...reversed, reversed[0]] }), 'matchingRuleIds');
    expectValidation(await call('put', `${matching(rule.id)}/order`, {}), 'matchingRuleIds');
    expect((await call('get', matching(rule.id)).expect(200)).body.map((r: any) => r.id)).toEqual(reversed);
  });

  it('deletes a matching rule (204), closing the gap in the order, and answers 404 for absent ones', async () => {
    const list = (await call('get', matching(rule.id)).expect(200)).body;
    await takeFullSyncRequired(db, hr.id);
    const res = await call('delete', `${matching(rule.id)}/${list[1].id}`).expect(204);
    expect(res.text).toBe('');
    const after = (await call('get', matching(rule.id)).expect(200)).body;
    expect(after.map((r: any) => r.id)).toEqual(list.filter((_: any, i: number) => i !== 1).map((r: any) => r.id));
    expect(after.map((r: any) => r.order)).toEqual([1, 2, 3, 4, 5]);
    expect(await takeFullSyncRequired(db, hr.id)).toBe(true);
    expect(await lastActivity()).toMatchObject({
      target_type: 'ObjectMatchingRule',
      target_operation_type: 'Delete',
      target_id: String(list[1].id),
    });
    expect((await call('delete', `${matching(rule.id)}/${list[1].id}`)).status).toBe(404);
    const other = (
      await call('post', RULES, {
        name: 'HR in 2',
        connectedSystemId: hr.id,
        direction: 'Import',
        connectedSystemObjectTypeId: hr.types.person.id,
        metaverseObjectTypeId: user.id,
      }).expect(201)
    ).body;
    const foreign = await call('put', `${matching(other.id)}/${list[0].id}`, { caseSensitive: false });
    expect({ status: foreign.status, message: foreign.body.message }).toEqual({
      status: 404,
      message: `Matching rule ${list[0].id} does not exist in sync rule ${other.id}.`,
    });
    expect((await call('get', matching(999999))).status).toBe(404);
    expect((await call('post', matching(999999), { connectedSystemAttributeIds: [1], metaverseAttributeId: 1 })).status).toBe(404);
    expectValidation(await call('delete', `${matching(rule.id)}/abc`), 'matchingRuleId');
  });
});
