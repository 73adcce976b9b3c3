import { authorisedRequest, HistorySeed, HttpMethod, statusAndBody } from '@meridian/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/synchronisation/connected-systems';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Res {
  status: number;
  body: any;
}

function expectValidation(res: Res, ...fields: string[]): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  for (const field of fields) expect(Object.keys(res.body.validationErrors ?? {})).toContain(field);
}

function expectError(res: Res, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
}

describe('Connected systems (/api/v1/synchronisation/connected-systems)', () => {
  let h: WebHarness;
  let db: Client;
  let files: string;
  let seq = 0;

  const api = (method: HttpMethod, path: string, body?: unknown): Promise<Res> =>
    authorisedRequest(h.http, h.adminKey, method, path, body).then(statusAndBody);
  const writeCsv = (name: string, lines: string[]) => {
    mkdirSync(join(files, name, '..'), { recursive: true });
    writeFileSync(join(files, name), `${lines.join('\n')}\n`);
  };
  const HR = [
    'employeeId,firstName,lastName,mail,department',
    '1001,Ada,Lovelace,ada@example.com,R&D',
    '1002,Alan,Turing,alan@example.com,R&D',
    '1003,Grace,Hopper,grace@example.com,Navy',
  ];
  const createFile = async (settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => {
    seq += 1;
    const res = await api('post', BASE, {
      name: `HR ${seq}`,
      connectorType: 'File',
      settings: { filePath: 'hr/people.csv', ...settings },
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const lastActivity = async (systemId: number) =>
    (await db.query(`SELECT * FROM activity WHERE connected_system_id = $1 ORDER BY created DESC, id DESC LIMIT 1`, [systemId])).rows[0];
  const objectTypes = async (systemId: number) => (await api('get', `${BASE}/${systemId}/object-types`)).body;
  const importedSystem = async () => {
    const system = await createFile();
    expect((await api('post', `${BASE}/${system.id}/schema/import`)).status).toBe(200);
    const [person] = await objectTypes(system.id);
    const attr = (name: string) => person.attributes.find((a: any) => a.name === name);
    return { system, person, attr };
  };

  beforeAll(async () => {
    files = mkdtempSync(join(tmpdir(), 'meridian-cs-files-'));
    h = await startWebApp({ MERIDIAN_CONNECTOR_FILES_ROOT: files });
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    writeCsv('hr/people.csv', HR);
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
    rmSync(files, { recursive: true, force: true });
  });

  describe('create, read, update', () => {
    it('creates a File system with defaults filled in, and reads it back by id and in the list', async () => {
      const res = await api('post', BASE, {
        name: 'HR system',
        description: 'People from HR',
        connectorType: 'file',
        settings: { filePath: 'hr/people.csv', delimiter: ',' },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'HR system',
        description: 'People from HR',
        connectorType: 'File',
        created: expect.stringMatching(ISO),
        lastUpdated: null,
        objectTypeCount: 0,
        objectCount: 0,
        runProfileCount: 0,
        settings: {
          filePath: 'hr/people.csv',
          delimiter: ',',
          quote: '"',
          encoding: 'utf-8',
          multiValueDelimiter: '|',
          objectType: 'person',
          objectTypeColumn: null,
          mode: 'Import',
          sampleRows: 1000,
        },
        secretSettingsSet: [],
        unresolvedReferenceHandling: 'Warn',
        fullSyncRequired: false,
        lastSchemaImport: null,
        capabilities: { fullImport: true, deltaImport: false, export: false, schemaDiscovery: true, paging: true, autoConfirmExport: true },
        deletionActivityId: null,
      });
      const got = await api('get', `${BASE}/${res.body.id}`);
      expect(got).toEqual({ status: 200, body: res.body });
      const list = await api('get', BASE);
      expect(list.status).toBe(200);
      const {
        settings: _s,
        secretSettingsSet: _x,
        unresolvedReferenceHandling: _u,
        fullSyncRequired: _f,
        lastSchemaImport: _l,
        capabilities: _c,
        deletionActivityId: _d,
        ...summary
      } = res.body;
      expect(list.body).toContainEqual(summary);

      const activity = await lastActivity(res.body.id);
      expect(activity).toMatchObject({
        target_type: 'ConnectedSystem',
        target_operation_type: 'Create',
        target_name: 'HR system',
        status: 'Complete',
        initiated_by_type: 'ApiKey',
        initiated_by_name: 'Bootstrap administrator key',
        target_id: String(res.body.id),
      });
    });

    it('counts object types, connector space objects and run profiles in the list', async () => {
      const { system, person } = await importedSystem();
      await db.query(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id) SELECT $1, $2, 'x' || g FROM generate_series(1, 7) g`,
        [system.id, person.id],
      );
      expect((await api('post', `${BASE}/${system.id}/run-profiles`, { name: 'Full import', runType: 'FullImport' })).status).toBe(201);
      const item = (await api('get', BASE)).body.find((s: any) => s.id === system.id);
      expect(item).toMatchObject({ objectTypeCount: 1, objectCount: 7, runProfileCount: 1 });
      expect((await api('get', `${BASE}/${system.id}`)).body).toMatchObject({
        objectTypeCount: 1,
        objectCount: 7,
        runProfileCount: 1,
        lastSchemaImport: expect.stringMatching(ISO),
      });
    });

    it('validates the body and names each bad field, settings as settings.<name>', async () => {
      expectValidation(await api('post', BASE, { connectorType: 'File', settings: { filePath: 'a.csv' } }), 'name');
      expectValidation(await api('post', BASE, { name: 'x'.repeat(201), connectorType: 'File', settings: { filePath: 'a.csv' } }), 'name');
      expectValidation(await api('post', BASE, { name: 'No type', settings: {} }), 'connectorType');
      const unknownType = await api('post', BASE, { name: 'Bad type', connectorType: 'Carrier pigeon' });
      expectValidation(unknownType, 'connectorType');
      expect(unknownType.body.validationErrors.connectorType[0]).toMatch(/available: .*File/);
      expectValidation(await api('post', BASE, { name: 'No path', connectorType: 'File', settings: {} }), 'settings.filePath');
      expectValidation(await api('post', BASE, { name: 'No settings', connectorType: 'File' }), 'settings.filePath');
      expectValidation(
        await api('post', BASE, { name: 'Unknown setting', connectorType: 'File', settings: { filePath: 'a.csv', bogus: 1 } }),
        'settings.bogus',
      );
      expectValidation(
        await api('post', BASE, { name: 'Bad mode', connectorType: 'File', settings: { filePath: 'a.csv', mode: 'Sideways' } }),
        'settings.mode',
      );
      expectValidation(
        await api('post', BASE, { name: 'Bad rows', connectorType: 'File', settings: { filePath: 'a.csv', sampleRows: 'many' } }),
        'settings.sampleRows',
      );
      expectValidation(
        await api('post', BASE, { name: 'Too many rows', connectorType: 'File', settings: { filePath: 'a.csv', sampleRows: 100001 } }),
        'settings.sampleRows',
      );
      expectValidation(
        await api('post', BASE, {
          name: 'Bad handling',
          connectorType: 'File',
          settings: { filePath: 'a.csv' },
          unresolvedReferenceHandling: 'Panic',
        }),
        'unresolvedReferenceHandling',
      );
      expectValidation(await api('post', BASE, { name: 'Settings list', connectorType: 'File', settings: ['a.csv'] }), 'settings');
      expectValidation(
        await api('post', BASE, { name: 'Extra', connectorType: 'File', settings: { filePath: 'a.csv' }, colour: 'blue' }),
        'colour',
      );
      const several = await api('post', BASE, { name: '   ', connectorType: 'File', settings: { mode: 'x' } });
      expectValidation(several, 'name', 'settings.filePath', 'settings.mode');
      expect(await db.query(`SELECT 1 FROM connected_system WHERE name IN ('No path', 'Bad mode', 'Extra')`)).toMatchObject({
        rowCount: 0,
      });
    });

    it('reports one message per bad field, reads the reference handling ignoring case and refuses null where a value is needed', async () => {
      const typed = await api('post', BASE, {
        name: 5,
        description: 7,
        connectorType: '  ',
        settings: 'a.csv',
        unresolvedReferenceHandling: null,
      });
      expectValidation(typed, 'name', 'description', 'connectorType', 'settings', 'unresolvedReferenceHandling');
      expect(typed.body.validationErrors).toEqual({
        name: ['name is required and must be 1-200 characters.'],
        description: ['description must be text of at most 2000 characters.'],
        connectorType: ['connectorType is required.'],
        settings: ['settings must be an object of setting name to value.'],
        unresolvedReferenceHandling: ['unresolvedReferenceHandling must be one of Error, Warn, Ignore.'],
      });
      const created = await api('post', BASE, {
        name: ' Handling ',
        connectorType: 'file',
        settings: { filePath: 'a.csv' },
        unresolvedReferenceHandling: 'ignore',
        description: null,
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'Handling',
        connectorType: 'File',
        unresolvedReferenceHandling: 'Ignore',
        description: null,
      });
      const update = await api('put', `${BASE}/${created.body.id}`, { name: null, unresolvedReferenceHandling: 'Panic' });
      expect(update.body.validationErrors).toEqual({
        name: ['name is required and must be 1-200 characters.'],
        unresolvedReferenceHandling: ['unresolvedReferenceHandling must be one of Error, Warn, Ignore.'],
      });
    });

    it('refuses a name already in use, ignoring case (409), on create and on rename', async () => {
      const a = await createFile();
      const b = await createFile();
      expectError(
        await api('post', BASE, { name: a.name.toUpperCase(), connectorType: 'File', settings: { filePath: 'x.csv' } }),
        409,
        'CONFLICT',
      );
      expectError(await api('put', `${BASE}/${b.id}`, { name: ` ${a.name.toLowerCase()} ` }), 409, 'CONFLICT');
      expect((await api('put', `${BASE}/${a.id}`, { name: a.name.toLowerCase() })).body.name).toBe(a.name.toLowerCase());
    });

    it('updates partially: unnamed settings keep their values, connectorType is immutable, the change is an activity', async () => {
      const system = await createFile({ delimiter: ';' });
      const res = await api('put', `${BASE}/${system.id}`, {
        description: 'Changed',
        settings: { mode: 'bidirectional' },
        unresolvedReferenceHandling: 'error',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        description: 'Changed',
        unresolvedReferenceHandling: 'Error',
        lastUpdated: expect.stringMatching(ISO),
        settings: { filePath: 'hr/people.csv', delimiter: ';', mode: 'Bidirectional' },
        capabilities: { fullImport: true, export: true },
      });
      const activity = await lastActivity(system.id);
      expect(activity).toMatchObject({ target_operation_type: 'Update', target_name: system.name });
      expect(activity.details).toMatchObject({
        changed: ['description', 'unresolvedReferenceHandling', 'settings'],
        settings: { mode: { from: 'Import', to: 'Bidirectional' } },
      });

      expectValidation(await api('put', `${BASE}/${system.id}`, { connectorType: 'LDAP' }), 'connectorType');
      expect((await api('put', `${BASE}/${system.id}`, { connectorType: 'file' })).status).toBe(200);
      expectValidation(await api('put', `${BASE}/${system.id}`, { settings: { filePath: null } }), 'settings.filePath');
      expectValidation(await api('put', `${BASE}/${system.id}`, { settings: { nope: true } }), 'settings.nope');
      expectValidation(await api('put', `${BASE}/${system.id}`, { name: '' }), 'name');
      // Nothing changed: no new activity.
      const before = (await db.query(`SELECT count(*)::int AS n FROM activity WHERE connected_system_id = $1`, [system.id])).rows[0].n;
      expect((await api('put', `${BASE}/${system.id}`, { description: 'Changed' })).status).toBe(200);
      expect((await db.query(`SELECT count(*)::int AS n FROM activity WHERE connected_system_id = $1`, [system.id])).rows[0].n).toBe(
        before,
      );
    });

    it('answers 404 for an unknown system and 400 for an id that is not an integer, on every route', async () => {
      for (const [method, path] of [
        ['get', ''],
        ['put', ''],
        ['delete', ''],
        ['get', '/deletion-preview'],
        ['post', '/test-connection'],
        ['post', '/schema/import'],
        ['get', '/object-types'],
        ['get', '/run-profiles'],
        ['post', '/run-profiles'],
      ] as const) {
        const body =
          method === 'put' ? {} : method === 'post' && path === '/run-profiles' ? { name: 'x', runType: 'FullImport' } : undefined;
        expectError(await api(method, `${BASE}/999999${path}`, body), 404, 'NOT_FOUND');
        expectValidation(await api(method, `${BASE}/abc${path}`, body), 'connectedSystemId');
      }
    });
  });

  describe('test connection', () => {
    it('reports success with the connector message when the file is there', async () => {
      const system = await createFile();
      const res = await api('post', `${BASE}/${system.id}/test-connection`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: expect.stringContaining('hr/people.csv'),
        details: expect.objectContaining({ columns: ['employeeId', 'firstName', 'lastName', 'mail', 'department'] }),
      });
    });

    it('reports failure as success false (200), never an error status', async () => {
      const missing = await createFile({ filePath: 'hr/missing.csv' });
      const res = await api('post', `${BASE}/${missing.id}/test-connection`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: false, message: expect.stringMatching(/does not exist/) });
      const escaping = await createFile({ filePath: '../outside.csv' });
      const res2 = await api('post', `${BASE}/${escaping.id}/test-connection`);
      expect(res2).toMatchObject({ status: 200, body: { success: false, message: expect.any(String) } });
    });
  });

  describe('schema import', () => {
    it('discovers object types and attributes from the CSV, unselected, with the suggested external ID designated', async () => {
      const system = await createFile();
      const res = await api('post', `${BASE}/${system.id}/schema/import`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        activityId: expect.stringMatching(UUID),
        objectTypesAdded: 1,
        attributesAdded: 5,
        attributesUpdated: 0,
        objectTypesRemoved: [],
        attributesRemoved: [],
        objectTypesRestored: [],
        attributesRestored: [],
        attributesChanged: [],
        objectTypeCount: 1,
        fullSyncRequired: false,
        warnings: [],
      });
      const types = await objectTypes(system.id);
      expect(types).toHaveLength(1);
      const [person] = types;
      expect(person).toMatchObject({
        name: 'person',
        selected: false,
        removeContributedAttributesOnObsoletion: false,
        presentInSchema: true,
        attributeCount: 5,
        created: expect.stringMatching(ISO),
      });
      expect(Object.keys(person).sort()).toEqual([
        'attributeCount',
        'attributes',
        'created',
        'id',
        'name',
        'presentInSchema',
        'removeContributedAttributesOnObsoletion',
        'selected',
      ]);
      const byName = Object.fromEntries(person.attributes.map((a: any) => [a.name, a]));
      expect(Object.keys(byName).sort()).toEqual(['department', 'employeeId', 'firstName', 'lastName', 'mail']);
      expect(byName.employeeId).toEqual({
        id: expect.any(Number),
        name: 'employeeId',
        description: expect.any(String),
        className: null,
        created: expect.stringMatching(ISO),
        type: 'Integer',
        attributePlurality: 'Single',
        selected: true,
        isExternalId: true,
        isSecondaryExternalId: false,
        selectionLocked: true,
        writability: 'ReadWrite',
        presentInSchema: true,
      });
      expect(byName.mail).toMatchObject({ type: 'String', selected: false, isExternalId: false, selectionLocked: false });
      const activity = (await api('get', `/api/v1/activities/${res.body.activityId}`)).body;
      expect(activity).toMatchObject({
        targetType: 'ConnectedSystem',
        targetOperationType: 'ImportSchema',
        targetName: system.name,
        status: 'Complete',
        connectedSystemId: system.id,
      });
    });

    it('re-import keeps selections, reports what disappeared and flags it, and restores it when it comes back', async () => {
      writeCsv('hr/changing.csv', HR);
      const system = await createFile({ filePath: 'hr/changing.csv' });
      await api('post', `${BASE}/${system.id}/schema/import`);
      const [person] = await objectTypes(system.id);
      const id = (name: string) => person.attributes.find((a: any) => a.name === name).id;
      expect((await api('put', `${BASE}/${system.id}/object-types/${person.id}`, { selected: true })).status).toBe(200);
      expect(
        (
          await api('post', `${BASE}/${system.id}/object-types/${person.id}/attributes/bulk-update`, {
            attributes: { [id('mail')]: { selected: true }, [id('department')]: { selected: true } },
          })
        ).status,
      ).toBe(200);

      writeCsv('hr/changing.csv', [
        'employeeId,firstName,lastName,mail,phone',
        '1001,Ada,Lovelace,ada@example.com,1',
        '1002,Alan,Turing,alan@example.com,2',
      ]);
      const res = await api('post', `${BASE}/${system.id}/schema/import`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        objectTypesAdded: 0,
        attributesAdded: 1,
        objectTypesRemoved: [],
        attributesRemoved: [{ objectType: 'person', attribute: 'department' }],
        fullSyncRequired: true,
      });
      const [after] = await objectTypes(system.id);
      const byName = Object.fromEntries(after.attributes.map((a: any) => [a.name, a]));
      expect(after.selected).toBe(true);
      expect(byName.department).toMatchObject({ selected: true, presentInSchema: false });
      expect(byName.mail).toMatchObject({ selected: true, presentInSchema: true });
      expect(byName.employeeId).toMatchObject({ isExternalId: true, selected: true });
      expect(byName.phone).toMatchObject({ selected: false, isExternalId: false, presentInSchema: true });
      expect(after.attributeCount).toBe(6);

      writeCsv('hr/changing.csv', HR);
      const again = await api('post', `${BASE}/${system.id}/schema/import`);
      expect(again.body).toMatchObject({
        attributesAdded: 0,
        attributesRemoved: [{ objectType: 'person', attribute: 'phone' }],
        attributesRestored: [{ objectType: 'person', attribute: 'department' }],
      });
      const [restored] = await objectTypes(system.id);
      expect(restored.attributes.find((a: any) => a.name === 'department')).toMatchObject({ selected: true, presentInSchema: true });
    });

    it('reports object types that disappeared (object type column)', async () => {
      writeCsv('hr/typed.csv', ['type,id,name', 'person,1,Ada', 'group,2,Admins']);
      const system = await createFile({ filePath: 'hr/typed.csv', objectTypeColumn: 'type' });
      expect((await api('post', `${BASE}/${system.id}/schema/import`)).body).toMatchObject({ objectTypesAdded: 2, objectTypeCount: 2 });
      writeCsv('hr/typed.csv', ['type,id,name', 'person,1,Ada']);
      const res = await api('post', `${BASE}/${system.id}/schema/import`);
      expect(res.body).toMatchObject({ objectTypesAdded: 0, objectTypesRemoved: ['group'], objectTypeCount: 2 });
      expect((await objectTypes(system.id)).map((t: any) => [t.name, t.presentInSchema])).toEqual([
        ['group', false],
        ['person', true],
      ]);
    });

    it('a connector failure is a 400 BAD_REQUEST with the message and a failed activity', async () => {
      const system = await createFile({ filePath: 'hr/nothing-here.csv' });
      const res = await api('post', `${BASE}/${system.id}/schema/import`);
      expectError(res, 400, 'BAD_REQUEST');
      expect(res.body.message).toMatch(/^Schema discovery failed: /);
      const activity = (await api('get', `/api/v1/activities/${res.body.details.activityId}`)).body;
      expect(activity).toMatchObject({ targetOperationType: 'ImportSchema', status: 'FailedWithError', errorMessage: expect.any(String) });
      expect(await objectTypes(system.id)).toEqual([]);
    });
  });

  describe('object types and attributes (spec 4.9)', () => {
    it('updates an object type and marks the system for a full synchronisation', async () => {
      const { system, person } = await importedSystem();
      const res = await api('put', `${BASE}/${system.id}/object-types/${person.id}`, {
        selected: true,
        removeContributedAttributesOnObsoletion: true,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: person.id,
        name: 'person',
        selected: true,
        removeContributedAttributesOnObsoletion: true,
        attributeCount: 5,
      });
      expect(res.body.attributes).toHaveLength(5);
      expect((await api('get', `${BASE}/${system.id}`)).body.fullSyncRequired).toBe(true);
      expect((await lastActivity(system.id)).details).toMatchObject({
        objectType: 'person',
        changes: { selected: { from: false, to: true } },
      });
      expectValidation(await api('put', `${BASE}/${system.id}/object-types/${person.id}`, { selected: 'yes' }), 'selected');
      const nullFlag = await api('put', `${BASE}/${system.id}/object-types/${person.id}`, {
        removeContributedAttributesOnObsoletion: null,
      });
      expect(nullFlag.body.validationErrors).toEqual({
        removeContributedAttributesOnObsoletion: ['removeContributedAttributesOnObsoletion must be true or false.'],
      });
      expectValidation(await api('put', `${BASE}/${system.id}/object-types/${person.id}`, { name: 'renamed' }), 'name');
    });

    it('rule 1: setting isExternalId clears it from every other attribute of the type', async () => {
      const { system, person, attr } = await importedSystem();
      const res = await api('put', `${BASE}/${system.id}/object-types/${person.id}/attributes/${attr('mail').id}`, { isExternalId: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: attr('mail').id, name: 'mail', isExternalId: true, selected: true, selectionLocked: true });
      const [after] = await objectTypes(system.id);
      expect(after.attributes.filter((a: any) => a.isExternalId).map((a: any) => a.name)).toEqual(['mail']);
      // The previous external ID keeps its selection but is no longer locked.
      expect(after.attributes.find((a: any) => a.name === 'employeeId')).toMatchObject({
        isExternalId: false,
        selected: true,
        selectionLocked: false,
      });
      expect((await api('get', `${BASE}/${system.id}`)).body.fullSyncRequired).toBe(true);
    });

    it('rule 2: external IDs are selected automatically and cannot be deselected (400 VALIDATION_ERROR)', async () => {
      const { system, person, attr } = await importedSystem();
      const url = (name: string) => `${BASE}/${system.id}/object-types/${person.id}/attributes/${attr(name).id}`;
      const refused = await api('put', url('employeeId'), { selected: false });
      expectValidation(refused, 'selected');
      expect(refused.body.message).toMatch(/cannot be deselected/);
      expect((await api('put', url('lastName'), { isSecondaryExternalId: true })).body).toMatchObject({
        selected: true,
        isSecondaryExternalId: true,
        selectionLocked: true,
      });
      expectValidation(await api('put', url('lastName'), { selected: false }), 'selected');
      expectValidation(await api('put', url('employeeId'), { isSecondaryExternalId: true }), 'isSecondaryExternalId');
      // Clearing the flag and deselecting in one update is allowed.
      expect((await api('put', url('lastName'), { isSecondaryExternalId: false, selected: false })).body).toMatchObject({
        selected: false,
        isSecondaryExternalId: false,
        selectionLocked: false,
      });
      expectValidation(await api('put', url('mail'), { selected: 'no' }), 'selected');
      expect((await api('put', url('mail'), { isExternalId: null })).body.validationErrors).toEqual({
        isExternalId: ['isExternalId must be true or false.'],
      });
      expectValidation(await api('put', url('mail'), { type: 'Integer' }), 'type');
      const [after] = await objectTypes(system.id);
      expect(after.attributes.find((a: any) => a.name === 'employeeId')).toMatchObject({ selected: true, isExternalId: true });
    });

    it('only one secondary external ID per type', async () => {
      const { system, person, attr } = await importedSystem();
      const url = (name: string) => `${BASE}/${system.id}/object-types/${person.id}/attributes/${attr(name).id}`;
      await api('put', url('firstName'), { isSecondaryExternalId: true });
      await api('put', url('lastName'), { isSecondaryExternalId: true });
      const [after] = await objectTypes(system.id);
      expect(after.attributes.filter((a: any) => a.isSecondaryExternalId).map((a: any) => a.name)).toEqual(['lastName']);
    });

    it('bulk update applies the valid entries and reports rule violations in errors (spec 2.15)', async () => {
      const { system, person, attr } = await importedSystem();
      const res = await api('post', `${BASE}/${system.id}/object-types/${person.id}/attributes/bulk-update`, {
        attributes: {
          [attr('mail').id]: { selected: true },
          [attr('employeeId').id]: { selected: false },
          [attr('department').id]: { selected: true, isSecondaryExternalId: true },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        activityId: expect.stringMatching(UUID),
        updatedCount: 2,
        updatedAttributes: [
          { id: attr('mail').id, name: 'mail', selected: true, isExternalId: false, isSecondaryExternalId: false, selectionLocked: false },
          {
            id: attr('department').id,
            name: 'department',
            selected: true,
            isExternalId: false,
            isSecondaryExternalId: true,
            selectionLocked: true,
          },
        ].sort((a, b) => a.id - b.id),
        errors: [{ attributeId: attr('employeeId').id, errorMessage: expect.stringMatching(/cannot be deselected/) }],
      });
      const [after] = await objectTypes(system.id);
      expect(after.attributes.find((a: any) => a.name === 'employeeId')).toMatchObject({ selected: true, isExternalId: true });
      expect(after.attributes.find((a: any) => a.name === 'mail').selected).toBe(true);
      const activity = (await api('get', `/api/v1/activities/${res.body.activityId}`)).body;
      expect(activity).toMatchObject({ targetType: 'ConnectedSystem', targetOperationType: 'Update', status: 'Complete' });
      expect(activity.details.errors).toHaveLength(1);
    });

    it('bulk update reports attributes changed by rule 1, and errors is null when all applied', async () => {
      const { system, person, attr } = await importedSystem();
      const res = await api('post', `${BASE}/${system.id}/object-types/${person.id}/attributes/bulk-update`, {
        attributes: { [attr('mail').id]: { isExternalId: true } },
      });
      expect(res.body).toMatchObject({ updatedCount: 2, errors: null });
      expect(res.body.updatedAttributes.map((a: any) => [a.name, a.isExternalId, a.selected])).toEqual(
        [
          ['employeeId', false, true],
          ['mail', true, true],
        ].sort((a, b) => attr(a[0] as string).id - attr(b[0] as string).id),
      );
    });

    it('bulk update refuses an empty dictionary, unknown attribute ids and invalid fields with 400, changing nothing', async () => {
      const { system, person, attr } = await importedSystem();
      const url = `${BASE}/${system.id}/object-types/${person.id}/attributes/bulk-update`;
      expectValidation(await api('post', url, { attributes: {} }), 'attributes');
      expectValidation(await api('post', url, {}), 'attributes');
      expectValidation(await api('post', url, { attributes: [] }), 'attributes');
      const unknown = await api('post', url, { attributes: { [attr('mail').id]: { selected: true }, 987654: { selected: true } } });
      expectValidation(unknown, 'attributes.987654');
      expect(unknown.body.message).toMatch(/987654/);
      const other = await importedSystem();
      expectValidation(
        await api('post', url, { attributes: { [other.attr('mail').id]: { selected: true } } }),
        `attributes.${other.attr('mail').id}`,
      );
      expectValidation(await api('post', url, { attributes: { abc: { selected: true } } }), 'attributes.abc');
      expectValidation(
        await api('post', url, { attributes: { [attr('mail').id]: { selected: 'yes' } } }),
        `attributes.${attr('mail').id}.selected`,
      );
      expectValidation(
        await api('post', url, { attributes: { [attr('mail').id]: { colour: 'red' } } }),
        `attributes.${attr('mail').id}.colour`,
      );
      expectValidation(await api('post', url, { attributes: { [attr('mail').id]: {} } }), `attributes.${attr('mail').id}`);
      expectValidation(await api('post', url, { attributes: { [attr('mail').id]: true } }), `attributes.${attr('mail').id}`);
      const [after] = await objectTypes(system.id);
      expect(after.attributes.find((a: any) => a.name === 'mail').selected).toBe(false);
    });

    it('404 for an object type or attribute of another system, or an unknown one', async () => {
      const a = await importedSystem();
      const b = await importedSystem();
      expectError(await api('put', `${BASE}/${a.system.id}/object-types/${b.person.id}`, { selected: true }), 404, 'NOT_FOUND');
      expectError(
        await api('put', `${BASE}/${a.system.id}/object-types/${b.person.id}/attributes/${b.attr('mail').id}`, { selected: true }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await api('put', `${BASE}/${a.system.id}/object-types/${a.person.id}/attributes/${b.attr('mail').id}`, { selected: true }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await api('post', `${BASE}/${a.system.id}/object-types/${b.person.id}/attributes/bulk-update`, {
          attributes: { [b.attr('mail').id]: { selected: true } },
        }),
        404,
        'NOT_FOUND',
      );
      expectError(await api('put', `${BASE}/${a.system.id}/object-types/999999`, { selected: true }), 404, 'NOT_FOUND');
      expectValidation(await api('put', `${BASE}/${a.system.id}/object-types/x`, { selected: true }), 'objectTypeId');
      expectValidation(
        await api('put', `${BASE}/${a.system.id}/object-types/${a.person.id}/attributes/0`, { selected: true }),
        'attributeId',
      );
      const [bPerson] = await objectTypes(b.system.id);
      expect(bPerson.selected).toBe(false);
    });
  });

  describe('deletion', () => {
    const seedObjects = async (systemId: number, typeId: number, n: number) =>
      db.query(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name) SELECT $1, $2, 'E' || g, 'P ' || g FROM generate_series(1, $3::int) g`,
        [systemId, typeId, n],
      );

    it('previews what would be removed', async () => {
      const { system, person } = await importedSystem();
      await seedObjects(system.id, person.id, 10);
      await api('post', `${BASE}/${system.id}/run-profiles`, { name: 'Import', runType: 'FullImport' });
      const user = (await db.query(`SELECT id FROM metaverse_object_type WHERE name = 'User'`)).rows[0].id;
      await db.query(
        `INSERT INTO sync_rule (name, connected_system_id, direction, connected_system_object_type_id, metaverse_object_type_id) VALUES ('r', $1, 'Import', $2, $3)`,
        [system.id, person.id, user],
      );
      // Three CSOs joined: two MVOs only here, one also joined to another system.
      const mvos = (
        await db.query(`INSERT INTO metaverse_object (type_id, origin) SELECT $1, 'Projected' FROM generate_series(1, 3) RETURNING id`, [
          user,
        ])
      ).rows.map((r) => r.id);
      await db.query(
        `UPDATE connected_system_object SET metaverse_object_id = ($2::uuid[])[substring(external_id from 2)::int % 3 + 1] WHERE connected_system_id = $1 AND external_id IN ('E1', 'E2', 'E3')`,
        [system.id, mvos],
      );
      const other = await importedSystem();
      await db.query(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, metaverse_object_id) VALUES ($1, $2, 'O1', $3)`,
        [other.system.id, other.person.id, mvos[0]],
      );

      const res = await api('get', `${BASE}/${system.id}/deletion-preview`);
      expect(res).toEqual({
        status: 200,
        body: {
          connectedSystemId: system.id,
          connectedSystemName: system.name,
          connectedSystemObjectCount: 10,
          objectTypeCount: 1,
          attributeCount: 5,
          runProfileCount: 1,
          syncRuleCount: 1,
          joinedMetaverseObjectCount: 3,
          metaverseObjectsLeftWithoutConnectorsCount: 2,
          deletionRuleObjectTypes: [],
          activeRunActivityIds: [],
          immediateDeletionMaxObjects: 1000,
          expectedOutcome: 'CompletedImmediately',
          runsInBackground: false,
          deletionActivityId: null,
        },
      });
    });

    it('deletes a small system at once (200 CompletedImmediately) with everything under it', async () => {
      const { system, person } = await importedSystem();
      await seedObjects(system.id, person.id, 1000);
      await api('post', `${BASE}/${system.id}/run-profiles`, { name: 'Import', runType: 'FullImport' });
      const res = await api('delete', `${BASE}/${system.id}?deleteChangeHistory=false`);
      expect(res).toEqual({
        status: 200,
        body: {
          success: true,
          outcome: 'CompletedImmediately',
          activityId: expect.stringMatching(UUID),
          workerTaskId: null,
          errorMessage: null,
        },
      });
      expectError(await api('get', `${BASE}/${system.id}`), 404, 'NOT_FOUND');
      for (const [table, column] of [
        ['connected_system_object', 'connected_system_id'],
        ['connected_system_object_type', 'connected_system_id'],
        ['connected_system_run_profile', 'connected_system_id'],
      ]) {
        expect((await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [system.id])).rows[0].n).toBe(0);
      }
      expect(
        (await db.query(`SELECT count(*)::int AS n FROM connected_system_attribute WHERE object_type_id = $1`, [person.id])).rows[0].n,
      ).toBe(0);
      const activity = (await api('get', `/api/v1/activities/${res.body.activityId}`)).body;
      expect(activity).toMatchObject({
        targetType: 'ConnectedSystem',
        targetOperationType: 'Delete',
        targetName: system.name,
        status: 'Complete',
        objectsProcessed: 1000,
        details: expect.objectContaining({ connectedSystemObjectCount: 1000, deleteChangeHistory: false }),
      });
      expectError(await api('delete', `${BASE}/${system.id}`), 404, 'NOT_FOUND');
    });

    it('deletes the change records of a system deleted with deleteChangeHistory=true, and keeps them with false', async () => {
      const history = new HistorySeed(db);
      const times = [1, 2, 3, 4].map((d) => new Date(Date.now() - d * 86_400_000));
      const changes = async (systemId: number) =>
        (await db.query(`SELECT count(*)::int AS n FROM connected_system_object_change WHERE connected_system_id = $1`, [systemId])).rows[0]
          .n;
      const purged = (await importedSystem()).system;
      const kept = (await importedSystem()).system;
      await history.csoChanges(times, { systemId: purged.id });
      await history.csoChanges(times.slice(0, 3), { systemId: kept.id });

      expect((await api('delete', `${BASE}/${purged.id}?deleteChangeHistory=true`)).status).toBe(200);
      expect((await api('delete', `${BASE}/${kept.id}?deleteChangeHistory=false`)).status).toBe(200);

      expect(await changes(purged.id)).toBe(0);
      expect(await changes(kept.id)).toBe(3);
    });

    it('queues a large system (202 QueuedAsBackgroundJob) with an InProgress activity and a job; the system is locked meanwhile', async () => {
      const { system, person, attr } = await importedSystem();
      await seedObjects(system.id, person.id, 1001);
      expect((await api('get', `${BASE}/${system.id}/deletion-preview`)).body).toMatchObject({
        expectedOutcome: 'QueuedAsBackgroundJob',
        runsInBackground: true,
      });
      const res = await api('delete', `${BASE}/${system.id}?deleteChangeHistory=true`);
      expect(res).toEqual({
        status: 202,
        body: {
          success: true,
          outcome: 'QueuedAsBackgroundJob',
          activityId: expect.stringMatching(UUID),
          workerTaskId: res.body.activityId,
          errorMessage: null,
        },
      });
      const activity = (await api('get', `/api/v1/activities/${res.body.activityId}`)).body;
      expect(activity).toMatchObject({
        status: 'InProgress',
        targetType: 'ConnectedSystem',
        targetOperationType: 'Delete',
        targetName: system.name,
        connectedSystemId: system.id,
        objectsToProcess: 1001,
        objectsProcessed: 0,
        initiatedByType: 'ApiKey',
        details: expect.objectContaining({ deleteChangeHistory: true }),
      });

      const queue = new Queue('jobs', { connection: { url: h.env.env.REDIS_URL }, prefix: h.env.redisPrefix });
      try {
        const job = await queue.getJob(`delete-connected-system-${res.body.activityId}`);
        expect(job?.name).toBe('delete-connected-system');
        expect(job?.data).toEqual({ activityId: res.body.activityId });
      } finally {
        await queue.close();
      }

      // Still there until the worker gets to it, marked as being deleted, and closed to changes.
      expect((await api('get', `${BASE}/${system.id}`)).body).toMatchObject({ deletionActivityId: res.body.activityId, objectCount: 1001 });
      expectError(await api('put', `${BASE}/${system.id}`, { description: 'late' }), 409, 'CONFLICT');
      expectError(await api('post', `${BASE}/${system.id}/schema/import`), 409, 'CONFLICT');
      expectError(
        await api('put', `${BASE}/${system.id}/object-types/${person.id}/attributes/${attr('mail').id}`, { selected: true }),
        409,
        'CONFLICT',
      );
      expectError(await api('post', `${BASE}/${system.id}/run-profiles`, { name: 'Late', runType: 'FullImport' }), 409, 'CONFLICT');
      // Asking again answers with the same queued deletion.
      expect(await api('delete', `${BASE}/${system.id}`)).toEqual({ status: 202, body: res.body });
    });

    it('queues after a running run profile (202 QueuedAfterSync)', async () => {
      const { system } = await importedSystem();
      const profile = (await api('post', `${BASE}/${system.id}/run-profiles`, { name: 'Import', runType: 'FullImport' })).body;
      const run = await api('post', `${BASE}/${system.id}/run-profiles/${profile.id}/execute`);
      expect(run.status).toBe(202);
      expect((await api('get', `${BASE}/${system.id}/deletion-preview`)).body).toMatchObject({
        expectedOutcome: 'QueuedAfterSync',
        activeRunActivityIds: [run.body.activityId],
      });
      const res = await api('delete', `${BASE}/${system.id}`);
      expect(res).toEqual({
        status: 202,
        body: {
          success: true,
          outcome: 'QueuedAfterSync',
          activityId: expect.stringMatching(UUID),
          workerTaskId: res.body.activityId,
          errorMessage: null,
        },
      });
      expect((await api('get', `/api/v1/activities/${res.body.activityId}`)).body).toMatchObject({
        status: 'InProgress',
        message: expect.stringMatching(/when the running run profile/),
      });
      expectError(await api('post', `${BASE}/${system.id}/run-profiles/${profile.id}/execute`), 409, 'CONFLICT');
    });

    it('validates deleteChangeHistory', async () => {
      const system = await createFile();
      expectValidation(await api('delete', `${BASE}/${system.id}?deleteChangeHistory=maybe`), 'deleteChangeHistory');
      expect((await api('get', `${BASE}/${system.id}`)).status).toBe(200);
    });
  });
});
