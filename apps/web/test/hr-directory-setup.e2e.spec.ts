import { writeHrCsv } from '@meridian/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebApp, WebHarness } from './harness';

/**
 * The whole configuration an administrator does before the first synchronisation — an HR export
 * feeding the metaverse and a directory provisioned from it — done purely over HTTP and read back.
 */
describe('HR-to-directory setup over the API', () => {
  let h: WebHarness;
  let root: string;
  const admin = () => ({ 'X-Api-Key': h.adminKey });
  const get = (path: string) => h.http.get(path).set(admin());
  const post = (path: string, body: object = {}) => h.http.post(path).set(admin()).send(body);
  const put = (path: string, body: object) => h.http.put(path).set(admin()).send(body);
  const CS = '/api/v1/synchronisation/connected-systems';

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'meridian-files-'));
    mkdirSync(join(root, 'hr'));
    mkdirSync(join(root, 'directory'));
    await writeHrCsv(join(root, 'hr', 'people.csv'), 200);
    writeFileSync(join(root, 'directory', 'users.csv'), 'uid,cn,mail,displayName,department\n');
    h = await startWebApp({ MERIDIAN_CONNECTOR_FILES_ROOT: root });
  });

  afterAll(async () => {
    await h?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('configures, and reads back, a complete setup', async () => {
    // --- The HR source: a CSV connected system whose schema is discovered from the generated file.
    const hr = (
      await post(CS, {
        name: 'HR',
        description: 'Nightly HR export',
        connectorType: 'File',
        settings: { filePath: 'hr/people.csv', mode: 'Import', objectType: 'person' },
      }).expect(201)
    ).body;
    expect((await post(`${CS}/${hr.id}/test-connection`).expect(200)).body.success).toBe(true);
    const hrSchema = (await post(`${CS}/${hr.id}/schema/import`).expect(200)).body;
    expect(hrSchema.activityId).toEqual(expect.any(String));
    const [person] = (await get(`${CS}/${hr.id}/object-types`).expect(200)).body;
    expect(person.name).toBe('person');
    const hrAttr = (name: string) => person.attributes.find((a: { name: string }) => a.name === name);
    expect(hrAttr('employeeId')).toMatchObject({ isExternalId: true, selected: true, selectionLocked: true });
    expect(hrAttr('employeeEndDate').type).toBe('DateTime');
    await put(`${CS}/${hr.id}/object-types/${person.id}`, { selected: true }).expect(200);
    const wanted = ['firstName', 'lastName', 'email', 'department', 'title', 'displayName', 'status', 'samAccountName', 'employeeType'];
    const bulk = (
      await post(`${CS}/${hr.id}/object-types/${person.id}/attributes/bulk-update`, {
        attributes: Object.fromEntries(wanted.map((n) => [String(hrAttr(n).id), { selected: true }])),
      }).expect(200)
    ).body;
    expect(bulk.updatedCount).toBe(wanted.length);
    expect(bulk.errors).toBeNull();

    // --- Metaverse side: the built-in User type and its attributes.
    const types = (await get('/api/v1/metaverse/object-types').expect(200)).body;
    const user = types.find((t: { name: string }) => t.name === 'User');
    const mvAttributes = (await get(`/api/v1/metaverse/attributes?objectTypeId=${user.id}`).expect(200)).body;
    const mv = (name: string) => mvAttributes.find((a: { name: string }) => a.name === name).id;

    // --- Import rule: project Users, flow attributes (one by expression), match on Employee ID.
    const importRule = (
      await post('/api/v1/synchronisation/sync-rules', {
        name: 'HR people → Users',
        connectedSystemId: hr.id,
        direction: 'Import',
        connectedSystemObjectTypeId: person.id,
        metaverseObjectTypeId: user.id,
        projectToMetaverse: true,
        inboundOutOfScopeAction: 'Disconnect',
        scopingCriteria: [
          { type: 'All', criteria: [{ attributeId: hrAttr('status').id, operator: 'NotEquals', value: 'Archived', caseSensitive: false }] },
        ],
      }).expect(201)
    ).body;
    const mapping = async (source: object, target: number) =>
      (
        await post(`/api/v1/synchronisation/sync-rules/${importRule.id}/mappings`, {
          targetMetaverseAttributeId: target,
          sources: [source],
        }).expect(201)
      ).body;
    expect((await mapping({ connectedSystemAttributeId: hrAttr('employeeId').id }, mv('Employee ID'))).sourceType).toBe('AttributeMapping');
    await mapping({ connectedSystemAttributeId: hrAttr('displayName').id }, mv('Display Name'));
    await mapping({ connectedSystemAttributeId: hrAttr('email').id }, mv('Email'));
    await mapping({ connectedSystemAttributeId: hrAttr('department').id }, mv('Department'));
    const accountName = await mapping(
      { connectedSystemAttributeId: hrAttr('firstName').id, expression: 'Lower(cs["firstName"]) + "." + Lower(cs["lastName"])' },
      mv('Account Name'),
    );
    expect(accountName.sourceType).toBe('ExpressionMapping');
    const matching = (
      await post(`/api/v1/synchronisation/sync-rules/${importRule.id}/matching-rules`, {
        connectedSystemAttributeIds: [hrAttr('employeeId').id],
        metaverseAttributeId: mv('Employee ID'),
        caseSensitive: false,
      }).expect(201)
    ).body;
    expect(matching.id).toEqual(expect.any(Number));

    // --- The directory target: a second CSV system provisioned by an export rule.
    const dir = (
      await post(CS, {
        name: 'Directory',
        connectorType: 'File',
        settings: { filePath: 'directory/users.csv', mode: 'Bidirectional', objectType: 'account' },
      }).expect(201)
    ).body;
    await post(`${CS}/${dir.id}/schema/import`).expect(200);
    const [account] = (await get(`${CS}/${dir.id}/object-types`).expect(200)).body;
    const dirAttr = (name: string) => account.attributes.find((a: { name: string }) => a.name === name);
    await put(`${CS}/${dir.id}/object-types/${account.id}`, { selected: true }).expect(200);
    await put(`${CS}/${dir.id}/object-types/${account.id}/attributes/${dirAttr('uid').id}`, { isExternalId: true }).expect(200);
    await post(`${CS}/${dir.id}/object-types/${account.id}/attributes/bulk-update`, {
      attributes: Object.fromEntries(['cn', 'mail', 'displayName', 'department'].map((n) => [String(dirAttr(n).id), { selected: true }])),
    }).expect(200);
    const exportRule = (
      await post('/api/v1/synchronisation/sync-rules', {
        name: 'Users → Directory accounts',
        connectedSystemId: dir.id,
        direction: 'Export',
        connectedSystemObjectTypeId: account.id,
        metaverseObjectTypeId: user.id,
        provisionToConnectedSystem: true,
        outboundDeprovisionAction: 'Delete',
      }).expect(201)
    ).body;
    const exportMapping = async (source: object, target: string) =>
      post(`/api/v1/synchronisation/sync-rules/${exportRule.id}/mappings`, {
        targetConnectedSystemAttributeId: dirAttr(target).id,
        sources: [source],
      }).expect(201);
    await exportMapping({ metaverseAttributeId: mv('Account Name') }, 'uid');
    await exportMapping({ metaverseAttributeId: mv('Display Name') }, 'displayName');
    await exportMapping({ metaverseAttributeId: mv('Email') }, 'mail');
    await exportMapping({ metaverseAttributeId: mv('Display Name'), expression: 'Upper(mv["Display Name"])' }, 'cn');

    // --- Run profiles for both systems.
    const profile = async (systemId: number, name: string, runType: string) =>
      (await post(`${CS}/${systemId}/run-profiles`, { name, runType, pageSize: 500 }).expect(201)).body;
    const hrImport = await profile(hr.id, 'Full import', 'FullImport');
    await profile(hr.id, 'Full synchronisation', 'FullSynchronisation');
    await profile(dir.id, 'Export', 'Export');
    await profile(dir.id, 'Confirming import', 'FullImport');

    // --- A grace-period deletion rule on User.
    await put(`/api/v1/metaverse/object-types/${user.id}`, {
      deletionRule: 'WhenAuthoritativeSourceDisconnected',
      deletionTriggerConnectedSystemIds: [hr.id],
      deletionTriggerMode: 'Any',
      deletionGracePeriod: '30.00:00:00',
    }).expect(200);

    // --- Read it all back.
    const systems = (await get(CS).expect(200)).body;
    expect(systems.map((s: { name: string }) => s.name).sort()).toEqual(['Directory', 'HR']);
    const rules = (await get('/api/v1/synchronisation/sync-rules').expect(200)).body;
    expect(rules.items.map((r: { name: string }) => r.name).sort()).toEqual(['HR people → Users', 'Users → Directory accounts']);
    const importDetail = (await get(`/api/v1/synchronisation/sync-rules/${importRule.id}`).expect(200)).body;
    expect(importDetail).toMatchObject({
      direction: 'Import',
      projectToMetaverse: true,
      connectedSystemId: hr.id,
      metaverseObjectTypeId: user.id,
    });
    const importMappings = (await get(`/api/v1/synchronisation/sync-rules/${importRule.id}/mappings`).expect(200)).body;
    expect(importMappings).toHaveLength(5);
    expect(
      importMappings.find((m: { targetMetaverseAttributeName: string }) => m.targetMetaverseAttributeName === 'Account Name').sources[0]
        .expression,
    ).toBe('Lower(cs["firstName"]) + "." + Lower(cs["lastName"])');
    expect((await get(`/api/v1/synchronisation/sync-rules/${importRule.id}/matching-rules`).expect(200)).body).toHaveLength(1);
    const exportMappings = (await get(`/api/v1/synchronisation/sync-rules/${exportRule.id}/mappings`).expect(200)).body;
    expect(exportMappings.map((m: { targetConnectedSystemAttributeName: string }) => m.targetConnectedSystemAttributeName).sort()).toEqual([
      'cn',
      'displayName',
      'mail',
      'uid',
    ]);
    expect((await get(`${CS}/${hr.id}/run-profiles`).expect(200)).body.map((p: { runType: string }) => p.runType).sort()).toEqual([
      'FullImport',
      'FullSynchronisation',
    ]);
    expect((await get(`${CS}/${dir.id}/run-profiles`).expect(200)).body).toHaveLength(2);
    const userType = (await get(`/api/v1/metaverse/object-types/${user.id}`).expect(200)).body;
    expect(userType).toMatchObject({
      deletionRule: 'WhenAuthoritativeSourceDisconnected',
      deletionGracePeriod: '30.00:00:00',
      deletionTriggerConnectedSystemIds: [hr.id],
      deletionTriggerMode: 'Any',
    });
    const hrDetail = (await get(`${CS}/${hr.id}`).expect(200)).body;
    expect(hrDetail).toMatchObject({
      connectorType: 'File',
      settings: expect.objectContaining({ filePath: 'hr/people.csv', mode: 'Import' }),
    });

    // Executing a run profile queues it as an activity.
    const run = (await post(`${CS}/${hr.id}/run-profiles/${hrImport.id}/execute`).expect(202)).body;
    const activity = (await get(`/api/v1/activities/${run.activityId}`).expect(200)).body;
    expect(activity).toMatchObject({
      targetType: 'ConnectedSystemRunProfile',
      targetName: 'Full import',
      targetContext: 'HR',
      connectedSystemRunType: 'FullImport',
      connectedSystemId: hr.id,
      initiatedByType: 'ApiKey',
    });

    // Every change was recorded as an activity attributed to the caller.
    const activities = (await get('/api/v1/activities?pageSize=100&sortBy=created&sortDirection=asc').expect(200)).body;
    const kinds = new Set(activities.items.map((a: { targetType: string }) => a.targetType));
    for (const kind of ['ConnectedSystem', 'SyncRule', 'ObjectMatchingRule', 'ConnectedSystemRunProfile', 'MetaverseObjectType'])
      expect(kinds).toContain(kind);
    expect(
      activities.items
        .filter((a: { initiatedByType: string }) => a.initiatedByType !== 'ApiKey')
        .filter((a: { targetType: string }) => a.targetType !== 'ServiceSetting'),
    ).toEqual([]);
  });
});
