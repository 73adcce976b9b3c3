import { BUILT_IN_GROUP_ATTRIBUTES, BUILT_IN_USER_ATTRIBUTES } from '@meridian/domain';
import { authorisedRequest, HttpMethod } from '@meridian/testing';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TYPES = '/api/v1/metaverse/object-types';
const ATTRS = '/api/v1/metaverse/attributes';
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

/** A 400 VALIDATION_ERROR naming exactly these fields. */
function expectFields(res: Res, ...fields: string[]): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  expect(Object.keys(res.body.validationErrors ?? {}).sort()).toEqual([...fields].sort());
}

describe('metaverse schema (/api/v1/metaverse/object-types, /attributes)', () => {
  let h: WebHarness;
  let db: Client;
  let userTypeId: number;
  let groupTypeId: number;
  let hrSystemId: number;
  let adSystemId: number;

  const call = (method: HttpMethod, path: string, body?: object) => authorisedRequest(h.http, h.adminKey, method, path, body);
  const attrId = async (name: string): Promise<number> =>
    (await db.query('SELECT id FROM metaverse_attribute WHERE name = $1', [name])).rows[0].id;
  const activities = async (targetType: string, targetId: string | number) =>
    (
      await db.query(
        'SELECT target_operation_type, target_name, details, initiated_by_type FROM activity WHERE target_type = $1 AND target_id = $2 ORDER BY created, id',
        [targetType, String(targetId)],
      )
    ).rows;
  const lookupRows = async (attributeId: number) =>
    (
      await db.query(
        'SELECT value_normalised, object_id FROM metaverse_object_lookup WHERE attribute_id = $1 ORDER BY value_normalised, object_id',
        [attributeId],
      )
    ).rows;
  /** A sync rule of `typeId` (rows written directly: the sync rule API is another area). */
  const syncRule = async (name: string, typeId: number, direction = 'Import') => {
    const [{ id: csTypeId }] = (
      await db.query(`INSERT INTO connected_system_object_type (connected_system_id, name) VALUES ($1, $2) RETURNING id`, [
        hrSystemId,
        `t-${name}`,
      ])
    ).rows;
    return (
      await db.query(
        `INSERT INTO sync_rule (name, connected_system_id, direction, connected_system_object_type_id, metaverse_object_type_id)
      VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        [name, hrSystemId, direction, csTypeId, typeId],
      )
    ).rows[0].id as number;
  };

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    userTypeId = (await db.query(`SELECT id FROM metaverse_object_type WHERE name = 'User'`)).rows[0].id;
    groupTypeId = (await db.query(`SELECT id FROM metaverse_object_type WHERE name = 'Group'`)).rows[0].id;
    hrSystemId = (await db.query(`INSERT INTO connected_system (name, connector_type) VALUES ('HR', 'File') RETURNING id`)).rows[0].id;
    adSystemId = (await db.query(`INSERT INTO connected_system (name, connector_type) VALUES ('Directory', 'File') RETURNING id`)).rows[0]
      .id;
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  describe('object types', () => {
    it('lists the built-in User and Group with their default deletion rule and attribute counts', async () => {
      const res = await call('get', TYPES).expect(200);
      expect(res.body).toEqual([
        {
          id: userTypeId,
          name: 'User',
          description: null,
          isBuiltIn: true,
          deletionRule: 'WhenLastConnectorDisconnected',
          deletionGracePeriod: null,
          deletionTriggerConnectedSystemIds: [],
          deletionTriggerMode: 'Any',
          attributeCount: BUILT_IN_USER_ATTRIBUTES.length,
          created: expect.stringMatching(ISO),
          lastUpdated: null,
        },
        {
          id: groupTypeId,
          name: 'Group',
          description: null,
          isBuiltIn: true,
          deletionRule: 'WhenLastConnectorDisconnected',
          deletionGracePeriod: null,
          deletionTriggerConnectedSystemIds: [],
          deletionTriggerMode: 'Any',
          attributeCount: BUILT_IN_GROUP_ATTRIBUTES.length,
          created: expect.stringMatching(ISO),
          lastUpdated: null,
        },
      ]);
    });

    it('returns one type with its attributes; 404 when absent, 400 for an id that is not a positive integer', async () => {
      const res = await call('get', `${TYPES}/${groupTypeId}`).expect(200);
      expect(res.body.name).toBe('Group');
      expect(res.body.attributes.map((a: { name: string }) => a.name).sort()).toEqual(BUILT_IN_GROUP_ATTRIBUTES.map((a) => a.name).sort());
      const members = res.body.attributes.find((a: { name: string }) => a.name === 'Static Members');
      expect(members).toMatchObject({ type: 'Reference', plurality: 'Multi', isBuiltIn: true, isIndexed: false });
      expect(members.objectTypes).toEqual([{ id: groupTypeId, name: 'Group' }]);
      expectError(await call('get', `${TYPES}/99999`), 404, 'NOT_FOUND');
      for (const bad of ['abc', '0', '-1', '1.5']) expectFields(await call('get', `${TYPES}/${bad}`), 'id');
    });

    it('round-trips the deletion rule of a built-in type', async () => {
      const put = await call('put', `${TYPES}/${userTypeId}`, {
        deletionRule: 'WhenAuthoritativeSourceDisconnected',
        deletionGracePeriod: '7.00:00:00',
        deletionTriggerConnectedSystemIds: [adSystemId, hrSystemId, hrSystemId],
        deletionTriggerMode: 'All',
      }).expect(200);
      const expected = {
        deletionRule: 'WhenAuthoritativeSourceDisconnected',
        deletionGracePeriod: '7.00:00:00',
        deletionTriggerConnectedSystemIds: [hrSystemId, adSystemId].sort((a, b) => a - b),
        deletionTriggerMode: 'All',
      };
      expect(put.body).toMatchObject({ ...expected, name: 'User', lastUpdated: expect.stringMatching(ISO) });
      expect((await call('get', `${TYPES}/${userTypeId}`).expect(200)).body).toMatchObject(expected);
      const [row] = (await db.query('SELECT deletion_grace_period_seconds FROM metaverse_object_type WHERE id = $1', [userTypeId])).rows;
      expect(row.deletion_grace_period_seconds).toBe(7 * 86_400);

      // Changing only the grace period keeps the rest; a shorter timespan and "no grace" both work.
      expect((await call('put', `${TYPES}/${userTypeId}`, { deletionGracePeriod: '12:30:00' }).expect(200)).body).toMatchObject({
        ...expected,
        deletionGracePeriod: '12:30:00',
      });
      expect(
        (await call('put', `${TYPES}/${userTypeId}`, { deletionGracePeriod: '00:00:00' }).expect(200)).body.deletionGracePeriod,
      ).toBeNull();
      expect(
        (await call('put', `${TYPES}/${userTypeId}`, { deletionGracePeriod: '2.00:00:00' }).expect(200)).body.deletionGracePeriod,
      ).toBe('2.00:00:00');
      expect((await call('put', `${TYPES}/${userTypeId}`, { deletionGracePeriod: null }).expect(200)).body.deletionGracePeriod).toBeNull();

      // Moving away from WhenAuthoritativeSourceDisconnected clears the trigger systems.
      const manual = await call('put', `${TYPES}/${userTypeId}`, { deletionRule: 'Manual', name: 'User' }).expect(200);
      expect(manual.body).toMatchObject({ deletionRule: 'Manual', deletionTriggerConnectedSystemIds: [] });
      await call('put', `${TYPES}/${userTypeId}`, { deletionRule: 'WhenLastConnectorDisconnected', deletionTriggerMode: 'Any' }).expect(
        200,
      );

      const updates = (await activities('MetaverseObjectType', userTypeId)).filter((a) => a.target_operation_type === 'Update');
      expect(updates.length).toBe(7);
      expect(updates[0]).toMatchObject({
        target_name: 'User',
        initiated_by_type: 'ApiKey',
        details: {
          changed: ['deletionRule', 'deletionGracePeriod', 'deletionTriggerConnectedSystemIds', 'deletionTriggerMode'],
          ...expected,
        },
      });
    });

    it.each<[string, object, string[]]>([
      ['an unknown rule', { deletionRule: 'Sometimes' }, ['deletionRule']],
      ['a grace period in words', { deletionGracePeriod: '7 days' }, ['deletionGracePeriod']],
      ['a grace period as a number of seconds', { deletionGracePeriod: 3600 }, ['deletionGracePeriod']],
      ['a grace period with fractions of a second', { deletionGracePeriod: '00:00:01.5' }, ['deletionGracePeriod']],
      ['a grace period over ten years', { deletionGracePeriod: '3651.00:00:00' }, ['deletionGracePeriod']],
      ['an unknown trigger mode', { deletionTriggerMode: 'Some' }, ['deletionTriggerMode']],
      [
        'WhenAuthoritativeSourceDisconnected without trigger systems',
        { deletionRule: 'WhenAuthoritativeSourceDisconnected' },
        ['deletionTriggerConnectedSystemIds'],
      ],
      [
        'WhenAuthoritativeSourceDisconnected with an empty list',
        { deletionRule: 'WhenAuthoritativeSourceDisconnected', deletionTriggerConnectedSystemIds: [] },
        ['deletionTriggerConnectedSystemIds'],
      ],
      [
        'a trigger system that does not exist',
        { deletionRule: 'WhenAuthoritativeSourceDisconnected', deletionTriggerConnectedSystemIds: [99999] },
        ['deletionTriggerConnectedSystemIds'],
      ],
      [
        'trigger ids that are not numbers',
        { deletionRule: 'WhenAuthoritativeSourceDisconnected', deletionTriggerConnectedSystemIds: ['1'] },
        ['deletionTriggerConnectedSystemIds'],
      ],
      [
        'trigger systems with another rule',
        { deletionRule: 'Manual', deletionTriggerConnectedSystemIds: [1] },
        ['deletionTriggerConnectedSystemIds'],
      ],
      ['renaming a built-in type', { name: 'Person' }, ['name']],
      ['describing a built-in type', { description: 'People' }, ['description']],
      ['a field that does not exist', { colour: 'blue' }, ['colour']],
    ])('refuses %s with 400 naming the field, changing nothing', async (_label, body, fields) => {
      const before = (await call('get', `${TYPES}/${userTypeId}`).expect(200)).body;
      expectFields(await call('put', `${TYPES}/${userTypeId}`, body), ...fields);
      expect((await call('get', `${TYPES}/${userTypeId}`).expect(200)).body).toEqual(before);
    });

    it('answers 404 for updating or deleting a type that does not exist', async () => {
      expectError(await call('put', `${TYPES}/99999`, { deletionRule: 'Manual' }), 404, 'NOT_FOUND');
      expectError(await call('delete', `${TYPES}/99999`), 404, 'NOT_FOUND');
    });

    it('never deletes a built-in type', async () => {
      for (const id of [userTypeId, groupTypeId]) expectError(await call('delete', `${TYPES}/${id}`), 400, 'BAD_REQUEST');
      expect((await call('get', TYPES).expect(200)).body).toHaveLength(2);
    });

    describe('custom types', () => {
      let contractorId: number;

      it('creates a custom type with attributes and a deletion rule, recording an activity', async () => {
        const displayName = await attrId('Display Name');
        const email = await attrId('Email');
        const res = await call('post', TYPES, {
          name: ' Contractor ',
          description: 'External staff',
          attributeIds: [displayName, email],
          deletionRule: 'WhenAuthoritativeSourceDisconnected',
          deletionTriggerConnectedSystemIds: [hrSystemId],
          deletionGracePeriod: '1.00:00:00',
        }).expect(201);
        contractorId = res.body.id;
        expect(res.body).toMatchObject({
          name: 'Contractor',
          description: 'External staff',
          isBuiltIn: false,
          attributeCount: 2,
          deletionRule: 'WhenAuthoritativeSourceDisconnected',
          deletionTriggerConnectedSystemIds: [hrSystemId],
          deletionGracePeriod: '1.00:00:00',
          deletionTriggerMode: 'Any',
        });
        expect(res.body.attributes.map((a: { name: string }) => a.name)).toEqual(['Display Name', 'Email']);
        expect((await call('get', TYPES).expect(200)).body.map((t: { name: string }) => t.name)).toEqual(['User', 'Group', 'Contractor']);
        const [created] = await activities('MetaverseObjectType', contractorId);
        expect(created).toMatchObject({
          target_operation_type: 'Create',
          target_name: 'Contractor',
          details: { deletionRule: 'WhenAuthoritativeSourceDisconnected', attributeIds: [displayName, email].sort((a, b) => a - b) },
        });
        // The attribute shows its new type.
        expect((await call('get', `${ATTRS}/${email}`).expect(200)).body.objectTypeIds).toEqual([userTypeId, groupTypeId, contractorId]);
      });

      it.each<[string, object, string[]]>([
        ['no name', {}, ['name']],
        ['a blank name', { name: '   ' }, ['name']],
        ['a name over 200 characters', { name: 'x'.repeat(201) }, ['name']],
        ['a name with a comma', { name: 'A,B' }, ['name']],
        ['the name of a built-in type in another case', { name: 'user' }, ['name']],
        ['a description over 1000 characters', { name: 'Printer', description: 'd'.repeat(1001) }, ['description']],
        ['attributes that do not exist', { name: 'Printer', attributeIds: [99999] }, ['attributeIds']],
        ['attribute ids that are not numbers', { name: 'Printer', attributeIds: ['x'] }, ['attributeIds']],
        ['an invalid deletion rule', { name: 'Printer', deletionRule: 'Never' }, ['deletionRule']],
        [
          'several problems at once',
          { name: '', deletionGracePeriod: 'soon', deletionTriggerMode: 'Most' },
          ['name', 'deletionGracePeriod', 'deletionTriggerMode'],
        ],
      ])('refuses %s with 400 naming the fields, creating nothing', async (_label, body, fields) => {
        const before = (await db.query('SELECT count(*)::int AS n FROM metaverse_object_type')).rows[0].n;
        expectFields(await call('post', TYPES, body), ...fields);
        expect((await db.query('SELECT count(*)::int AS n FROM metaverse_object_type')).rows[0].n).toBe(before);
      });

      it('refuses a duplicate name ignoring case', async () => {
        expectFields(await call('post', TYPES, { name: 'CONTRACTOR' }), 'name');
      });

      it('renames and describes a custom type; names stay unique', async () => {
        const res = await call('put', `${TYPES}/${contractorId}`, { name: 'Contractor Account', description: null }).expect(200);
        expect(res.body).toMatchObject({ name: 'Contractor Account', description: null });
        expectFields(await call('put', `${TYPES}/${contractorId}`, { name: 'Group' }), 'name');
        expectFields(await call('put', `${TYPES}/${contractorId}`, { name: 'a,b' }), 'name');
        const [update] = (await activities('MetaverseObjectType', contractorId)).filter((a) => a.target_operation_type === 'Update');
        expect(update.details.changed).toEqual(['name', 'description']);
      });

      it('changes the attributes of a type, keeping those in use', async () => {
        const displayName = await attrId('Display Name');
        const email = await attrId('Email');
        const dept = await attrId('Department');
        const res = await call('put', `${TYPES}/${contractorId}`, { attributeIds: [displayName, email, dept] }).expect(200);
        expect(res.body.attributes.map((a: { name: string }) => a.name)).toEqual(['Department', 'Display Name', 'Email']);
        await call('post', OBJECTS, { objectTypeId: contractorId, attributes: { Department: 'Facilities', 'Display Name': 'Pat' } }).expect(
          201,
        );
        // Objects of the type hold Department values: it stays.
        const refused = await call('put', `${TYPES}/${contractorId}`, { attributeIds: [displayName, email] });
        expectFields(refused, 'attributeIds');
        expect(refused.body.validationErrors.attributeIds.join(' ')).toMatch(/hold values for Department/);
        // Email has no values: it can go.
        expect((await call('put', `${TYPES}/${contractorId}`, { attributeIds: [displayName, dept] }).expect(200)).body.attributeCount).toBe(
          2,
        );
        // The built-in schema of User stays.
        const userAttrs = (await call('get', `${TYPES}/${userTypeId}`).expect(200)).body.attributes.map((a: { id: number }) => a.id);
        const withoutEmail = userAttrs.filter((id: number) => id !== email);
        const builtIn = await call('put', `${TYPES}/${userTypeId}`, { attributeIds: withoutEmail });
        expectFields(builtIn, 'attributeIds');
        expect(builtIn.body.validationErrors.attributeIds.join(' ')).toMatch(/built-in User schema/);
      });

      it('refuses to delete a type with objects or sync rules (409), then deletes it when unused', async () => {
        const conflict = await call('delete', `${TYPES}/${contractorId}`);
        expectError(conflict, 409, 'CONFLICT');
        expect(conflict.body.message).toMatch(/metaverse objects/);
        await db.query('DELETE FROM metaverse_object WHERE type_id = $1', [contractorId]);
        const ruleId = await syncRule('Contractors in', contractorId);
        const byRule = await call('delete', `${TYPES}/${contractorId}`);
        expectError(byRule, 409, 'CONFLICT');
        expect(byRule.body.message).toMatch(/Contractors in/);
        await db.query('DELETE FROM sync_rule WHERE id = $1', [ruleId]);
        await call('delete', `${TYPES}/${contractorId}`).expect(204);
        expectError(await call('get', `${TYPES}/${contractorId}`), 404, 'NOT_FOUND');
        const ops = (await activities('MetaverseObjectType', contractorId)).map((a) => a.target_operation_type);
        expect(ops[0]).toBe('Create');
        expect(ops[ops.length - 1]).toBe('Delete');
        expect(ops.filter((o) => o === 'Delete')).toHaveLength(1);
      });
    });
  });

  describe('attributes', () => {
    it('lists every attribute by name, or those of one type', async () => {
      const all = (await call('get', ATTRS).expect(200)).body;
      const names = all.map((a: { name: string }) => a.name);
      expect(names).toEqual([...names].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())));
      const builtInNames = new Set([...BUILT_IN_USER_ATTRIBUTES, ...BUILT_IN_GROUP_ATTRIBUTES].map((a) => a.name));
      expect(all.filter((a: { isBuiltIn: boolean }) => a.isBuiltIn).length).toBe(builtInNames.size);
      const email = all.find((a: { name: string }) => a.name === 'Email');
      expect(email).toEqual({
        id: expect.any(Number),
        name: 'Email',
        description: null,
        type: 'String',
        plurality: 'Single',
        isBuiltIn: true,
        isIndexed: true,
        objectTypeIds: [userTypeId, groupTypeId],
        objectTypes: [
          { id: userTypeId, name: 'User' },
          { id: groupTypeId, name: 'Group' },
        ],
        created: expect.stringMatching(ISO),
        lastUpdated: null,
      });
      const users = (await call('get', `${ATTRS}?objectTypeId=${userTypeId}`).expect(200)).body;
      expect(users.map((a: { name: string }) => a.name).sort()).toEqual(BUILT_IN_USER_ATTRIBUTES.map((a) => a.name).sort());
      expect((await call('get', `${ATTRS}/${email.id}`).expect(200)).body).toEqual(email);
    });

    it('answers 400 for a bad objectTypeId filter or id, and 404 for an attribute that does not exist', async () => {
      expectFields(await call('get', `${ATTRS}?objectTypeId=99999`), 'objectTypeId');
      expectFields(await call('get', `${ATTRS}?objectTypeId=abc`), 'objectTypeId');
      expectFields(await call('get', `${ATTRS}?objectTypeId=0`), 'objectTypeId');
      expectError(await call('get', `${ATTRS}/99999`), 404, 'NOT_FOUND');
      for (const bad of ['abc', '0', '1e3']) expectFields(await call('get', `${ATTRS}/${bad}`), 'id');
      expectError(await call('put', `${ATTRS}/99999`, { isIndexed: true }), 404, 'NOT_FOUND');
      expectError(await call('delete', `${ATTRS}/99999`), 404, 'NOT_FOUND');
    });

    it.each<[string, object, string[]]>([
      ['no name', { type: 'String' }, ['name']],
      ['no type', { name: 'Badge' }, ['type']],
      ['an unknown type', { name: 'Badge', type: 'Number' }, ['type']],
      ['an unknown plurality', { name: 'Badge', type: 'String', plurality: 'Many' }, ['plurality']],
      ['an index on a Boolean', { name: 'Badge', type: 'Boolean', isIndexed: true }, ['isIndexed']],
      ['an index on a Reference', { name: 'Badge', type: 'Reference', isIndexed: true }, ['isIndexed']],
      ['isIndexed as text', { name: 'Badge', type: 'String', isIndexed: 'yes' }, ['isIndexed']],
      ['the name of a built-in attribute in another case', { name: 'email', type: 'String' }, ['name']],
      ['a name with a comma', { name: 'Cost, Centre', type: 'String' }, ['name']],
      ['the name *', { name: '*', type: 'String' }, ['name']],
      ['object types that do not exist', { name: 'Badge', type: 'String', objectTypeIds: [99999] }, ['objectTypeIds']],
      ['a field that does not exist', { name: 'Badge', type: 'String', unique: true }, ['unique']],
    ])('refuses to create an attribute with %s (400 naming the fields)', async (_label, body, fields) => {
      const before = (await db.query('SELECT count(*)::int AS n FROM metaverse_attribute')).rows[0].n;
      expectFields(await call('post', ATTRS, body), ...fields);
      expect((await db.query('SELECT count(*)::int AS n FROM metaverse_attribute')).rows[0].n).toBe(before);
    });

    describe('built-in attributes', () => {
      it.each<[string, object, string]>([
        ['renamed', { name: 'Mail' }, 'name'],
        ['described', { description: 'Primary address' }, 'description'],
        ['retyped', { type: 'Text' }, 'type'],
        ['made multi-valued', { plurality: 'Multi' }, 'plurality'],
      ])('cannot be %s', async (_label, body, field) => {
        const email = await attrId('Email');
        expectFields(await call('put', `${ATTRS}/${email}`, body), field);
      });

      it('accept their own values back unchanged (a read-modify-write round trip)', async () => {
        const email = (await call('get', `${ATTRS}/${await attrId('Email')}`).expect(200)).body;
        const res = await call('put', `${ATTRS}/${email.id}`, {
          name: email.name,
          description: email.description,
          type: email.type,
          plurality: email.plurality,
          objectTypeIds: email.objectTypeIds,
          isIndexed: email.isIndexed,
        }).expect(200);
        expect({ ...res.body, lastUpdated: null }).toEqual(email);
      });

      it('can be indexed, un-indexed, and attached to more types, but keep their built-in types', async () => {
        const nickname = await attrId('Nickname');
        const custom = (await call('post', TYPES, { name: 'Service Account' }).expect(201)).body.id;
        const res = await call('put', `${ATTRS}/${nickname}`, { isIndexed: true, objectTypeIds: [userTypeId, custom] }).expect(200);
        expect(res.body).toMatchObject({ isIndexed: true, objectTypeIds: [userTypeId, custom] });
        expect(
          (await call('put', `${ATTRS}/${nickname}`, { isIndexed: false, objectTypeIds: [userTypeId] }).expect(200)).body,
        ).toMatchObject({ isIndexed: false, objectTypeIds: [userTypeId] });
        const kept = await call('put', `${ATTRS}/${nickname}`, { objectTypeIds: [custom] });
        expectFields(kept, 'objectTypeIds');
        expect(kept.body.validationErrors.objectTypeIds.join(' ')).toMatch(/built-in User schema/);
        expectFields(await call('put', `${ATTRS}/${nickname}`, { objectTypeIds: [99999, userTypeId] }), 'objectTypeIds');
      });

      it('cannot be indexed when their type has no index, and Subject Identifier (OIDC sign-in) stays indexed', async () => {
        expectFields(await call('put', `${ATTRS}/${await attrId('Account Enabled')}`, { isIndexed: true }), 'isIndexed');
        const subject = await call('put', `${ATTRS}/${await attrId('Subject Identifier')}`, { isIndexed: false });
        expectFields(subject, 'isIndexed');
        expect(subject.body.validationErrors.isIndexed.join(' ')).toMatch(/OIDC/);
      });

      it('are never deleted', async () => {
        expectError(await call('delete', `${ATTRS}/${await attrId('Email')}`), 400, 'BAD_REQUEST');
        expect((await call('get', `${ATTRS}/${await attrId('Email')}`).expect(200)).body.name).toBe('Email');
      });
    });

    describe('custom attributes', () => {
      let costCentre: number;

      it('are created, attached to types and recorded as activities', async () => {
        const res = await call('post', ATTRS, {
          name: 'Cost Centre',
          description: 'Finance code',
          type: 'String',
          objectTypeIds: [userTypeId],
        }).expect(201);
        costCentre = res.body.id;
        expect(res.body).toEqual({
          id: costCentre,
          name: 'Cost Centre',
          description: 'Finance code',
          type: 'String',
          plurality: 'Single',
          isBuiltIn: false,
          isIndexed: false,
          objectTypeIds: [userTypeId],
          objectTypes: [{ id: userTypeId, name: 'User' }],
          created: expect.stringMatching(ISO),
          lastUpdated: null,
        });
        expect((await call('get', `${TYPES}/${userTypeId}`).expect(200)).body.attributes.map((a: { name: string }) => a.name)).toContain(
          'Cost Centre',
        );
        expectFields(await call('post', ATTRS, { name: 'COST CENTRE', type: 'String' }), 'name');
        const [created] = await activities('MetaverseAttribute', costCentre);
        expect(created).toMatchObject({
          target_operation_type: 'Create',
          target_name: 'Cost Centre',
          details: { type: 'String', plurality: 'Single', isIndexed: false, objectTypeIds: [userTypeId] },
        });
      });

      it('change type and plurality only while no object holds a value', async () => {
        expect((await call('put', `${ATTRS}/${costCentre}`, { type: 'Integer', plurality: 'Multi' }).expect(200)).body).toMatchObject({
          type: 'Integer',
          plurality: 'Multi',
        });
        expect(
          (
            await call('put', `${ATTRS}/${costCentre}`, { type: 'string', plurality: 'Single', description: 'Finance cost centre' }).expect(
              400,
            )
          ).body.code,
        ).toBe('VALIDATION_ERROR');
        // An index needs an indexable type.
        const boolIndexed = await call('put', `${ATTRS}/${costCentre}`, { type: 'Boolean', isIndexed: true });
        expectFields(boolIndexed, 'type');
        expect(boolIndexed.body.validationErrors.type.join(' ')).toMatch(/can be indexed/);
        await call('put', `${ATTRS}/${costCentre}`, { type: 'String', plurality: 'Single', description: 'Finance cost centre' }).expect(
          200,
        );
        const user = (
          await call('post', OBJECTS, { objectType: 'User', attributes: { 'Display Name': 'Holder', 'Cost Centre': 'CC-1' } }).expect(201)
        ).body.id;
        expectFields(await call('put', `${ATTRS}/${costCentre}`, { type: 'Text' }), 'type');
        expectFields(await call('put', `${ATTRS}/${costCentre}`, { plurality: 'Multi' }), 'plurality');
        expectFields(await call('put', `${ATTRS}/${costCentre}`, { type: 'Boolean', isIndexed: true }), 'type');
        await call('delete', `${OBJECTS}/${user}`).expect(204);
      });

      it('build their lookup rows from existing values when indexed, and drop them when not', async () => {
        const make = (name: string, cc: string | string[] | null) =>
          call('post', OBJECTS, {
            objectType: 'User',
            attributes: { 'Display Name': name, ...(cc === null ? {} : { 'Cost Centre': cc }) },
          }).expect(201);
        const a = (await make('Indexed A', 'CC-Finance')).body.id;
        const b = (await make('Indexed B', 'cc-finance')).body.id;
        const c = (await make('Indexed C', 'CC-Legal')).body.id;
        await make('Indexed D', null);
        const long = `CC-${'x'.repeat(600)}`;
        const e = (await make('Indexed E', long)).body.id;
        const filter = async (value: string) =>
          (
            await call('get', `${OBJECTS}?filterAttributeName=cost%20centre&filterAttributeValue=${encodeURIComponent(value)}`).expect(200)
          ).body.items
            .map((i: { id: string }) => i.id)
            .sort();

        // Not indexed: no lookup rows, and the filter reads the stored values.
        expect(await lookupRows(costCentre)).toEqual([]);
        expect(await filter('CC-FINANCE')).toEqual([a, b].sort());

        const res = await call('put', `${ATTRS}/${costCentre}`, { isIndexed: true }).expect(200);
        expect(res.body.isIndexed).toBe(true);
        expect(await lookupRows(costCentre)).toEqual(
          [
            { value_normalised: 'cc-finance', object_id: a },
            { value_normalised: 'cc-finance', object_id: b },
            { value_normalised: 'cc-legal', object_id: c },
            { value_normalised: long.toLowerCase().slice(0, 512), object_id: e },
          ].sort((x, y) => (x.value_normalised + x.object_id).localeCompare(y.value_normalised + y.object_id)),
        );
        const [update] = (await activities('MetaverseAttribute', costCentre)).filter((x) => x.details.changed?.includes('isIndexed'));
        expect(update.details).toMatchObject({ isIndexed: true, lookupRowsAdded: 4 });

        // Indexed: the filter goes through the lookup rows (removing one hides its object) and stays exact for values past 512 characters.
        expect(await filter('cc-Finance')).toEqual([a, b].sort());
        expect(await filter(long.toUpperCase())).toEqual([e]);
        expect(await filter(`${long.slice(0, 600)}y`)).toEqual([]);
        await db.query('DELETE FROM metaverse_object_lookup WHERE attribute_id = $1 AND object_id = $2', [costCentre, b]);
        expect(await filter('cc-finance')).toEqual([a]);

        // Objects written from now on get their rows; an update rewrites them.
        const f = (await make('Indexed F', 'CC-Finance')).body.id;
        expect(await filter('CC-FINANCE')).toEqual([a, f].sort());
        await call('put', `${OBJECTS}/${f}`, { attributes: { 'Cost Centre': 'CC-Sales' } }).expect(200);
        expect(await filter('CC-FINANCE')).toEqual([a]);
        expect(await filter('cc-sales')).toEqual([f]);

        const off = await call('put', `${ATTRS}/${costCentre}`, { isIndexed: false }).expect(200);
        expect(off.body.isIndexed).toBe(false);
        expect(await lookupRows(costCentre)).toEqual([]);
        expect(await filter('CC-FINANCE')).toEqual([a, b].sort());
        for (const id of [a, b, c, e, f]) await call('delete', `${OBJECTS}/${id}`).expect(204);
        await db.query(`DELETE FROM metaverse_object WHERE display_name = 'Indexed D'`);
      });

      it('refuse renaming while a mapping expression names them, and deletion while any sync rule uses them', async () => {
        const ruleId = await syncRule('HR users', userTypeId);
        const [{ id: mappingId }] = (
          await db.query(`INSERT INTO sync_rule_mapping (sync_rule_id, target_metaverse_attribute_id) VALUES ($1, $2) RETURNING id`, [
            ruleId,
            await attrId('Department'),
          ])
        ).rows;
        await db.query(`INSERT INTO sync_rule_mapping_source (mapping_id, expression) VALUES ($1, 'Upper(mv["cost centre"])')`, [
          mappingId,
        ]);
        const rename = await call('put', `${ATTRS}/${costCentre}`, { name: 'Cost Center' });
        expectFields(rename, 'name');
        expect(rename.body.validationErrors.name.join(' ')).toMatch(/HR users/);
        const byExpression = await call('delete', `${ATTRS}/${costCentre}`);
        expectError(byExpression, 409, 'CONFLICT');
        expect(byExpression.body.details.syncRules).toEqual([{ id: ruleId, name: 'HR users' }]);

        await db.query('DELETE FROM sync_rule_mapping_source WHERE mapping_id = $1', [mappingId]);
        await db.query('UPDATE sync_rule_mapping SET target_metaverse_attribute_id = $2 WHERE id = $1', [mappingId, costCentre]);
        expectError(await call('delete', `${ATTRS}/${costCentre}`), 409, 'CONFLICT');
        await db.query('DELETE FROM sync_rule_mapping WHERE id = $1', [mappingId]);
        await db.query(
          `INSERT INTO sync_rule_matching_rule (sync_rule_id, connected_system_attribute_ids, metaverse_attribute_id) VALUES ($1, '{}', $2)`,
          [ruleId, costCentre],
        );
        expectError(await call('delete', `${ATTRS}/${costCentre}`), 409, 'CONFLICT');
        // A matching rule looks the attribute up through the index: it cannot be un-indexed while used.
        await call('put', `${ATTRS}/${costCentre}`, { isIndexed: true }).expect(200);
        expectFields(await call('put', `${ATTRS}/${costCentre}`, { isIndexed: false }), 'isIndexed');
        await db.query('DELETE FROM sync_rule_matching_rule WHERE sync_rule_id = $1', [ruleId]);
        const exportRule = await syncRule('Directory out', userTypeId, 'Export');
        await db.query(`UPDATE sync_rule SET scoping_criteria = $2 WHERE id = $1`, [
          exportRule,
          JSON.stringify([{ type: 'All', criteria: [{ attributeId: costCentre, operator: 'Equals', value: 'CC-1' }] }]),
        ]);
        expectError(await call('delete', `${ATTRS}/${costCentre}`), 409, 'CONFLICT');
        await db.query('DELETE FROM sync_rule WHERE id = ANY($1)', [[ruleId, exportRule]]);

        // Renamed now that nothing names it.
        expect((await call('put', `${ATTRS}/${costCentre}`, { name: 'Cost Center' }).expect(200)).body.name).toBe('Cost Center');
      });

      it('refuse deletion while an object holds a value, then delete with their lookup rows', async () => {
        const user = (await call('post', OBJECTS, { objectType: 'User', attributes: { 'Cost Center': 'CC-9' } }).expect(201)).body.id;
        expect(await lookupRows(costCentre)).toHaveLength(1);
        const res = await call('delete', `${ATTRS}/${costCentre}`);
        expectError(res, 409, 'CONFLICT');
        expect(res.body.message).toMatch(/hold values/);
        await call('put', `${OBJECTS}/${user}`, { attributes: { 'Cost Center': null } }).expect(200);
        await call('delete', `${ATTRS}/${costCentre}`).expect(204);
        expectError(await call('get', `${ATTRS}/${costCentre}`), 404, 'NOT_FOUND');
        expect(await lookupRows(costCentre)).toEqual([]);
        const ops = (await activities('MetaverseAttribute', costCentre)).map((a) => a.target_operation_type);
        expect(ops[0]).toBe('Create');
        expect(ops[ops.length - 1]).toBe('Delete');
        const [deleted] = (await activities('MetaverseAttribute', costCentre)).filter((a) => a.target_operation_type === 'Delete');
        expect(deleted).toMatchObject({ target_name: 'Cost Center', details: { type: 'String', objectTypeIds: [userTypeId] } });
      });
    });
  });
});
