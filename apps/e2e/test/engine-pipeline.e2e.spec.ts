import { MetaverseObjectDetail, paths, Schema, unwrap } from '@meridian/api-client';
import { hrRecord, HrRecord, writeHrCsv } from '@meridian/testing';
import { readFileSync } from 'node:fs';
import {
  Activity,
  configurePipeline,
  DIRECTORY_COLUMNS,
  EngineStack,
  expectedDirectoryRow,
  metaverseAttributes,
  PipelineIds,
  readCsv,
  writeCsv,
  writeHrRecords,
} from './engine-stack';

const ROWS = 200;
const PAGE_SIZE = 50;

type ConnectorSpaceQuery = NonNullable<
  paths['/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space']['get']['parameters']['query']
>;

/**
 * The whole pipeline with the built processes, over HTTP only: an HR file is imported, synchronised
 * into the metaverse and exported to a directory file, through joiners, movers, leavers (with and
 * without a grace period), a second source with a better priority, rejected rows and an empty source.
 * Counters are asserted exactly, and the directory file is read back.
 */
describe('engine pipeline: HR file → metaverse → directory file (real processes)', () => {
  let stack: EngineStack;
  let ids: PipelineIds;
  /** The HR file as it is now. */
  let people: HrRecord[];
  const hrFile = () => stack.path('hr/people.csv');
  const directoryFile = () => stack.path('directory/users.csv');
  const counters = (a: Activity) => ({
    status: a.status,
    objectsProcessed: a.objectsProcessed,
    totalAdded: a.totalAdded,
    totalUpdated: a.totalUpdated,
    totalDeleted: a.totalDeleted,
    totalProjected: a.totalProjected,
    totalJoined: a.totalJoined,
    totalAttributeFlows: a.totalAttributeFlows,
    totalDisconnected: a.totalDisconnected,
    totalProvisioned: a.totalProvisioned,
    totalExported: a.totalExported,
    totalDeprovisioned: a.totalDeprovisioned,
    totalPendingExports: a.totalPendingExports,
    totalErrors: a.totalErrors,
  });
  const zero = {
    objectsProcessed: 0,
    totalAdded: 0,
    totalUpdated: 0,
    totalDeleted: 0,
    totalProjected: 0,
    totalJoined: 0,
    totalAttributeFlows: 0,
    totalDisconnected: 0,
    totalProvisioned: 0,
    totalExported: 0,
    totalDeprovisioned: 0,
    totalPendingExports: 0,
    totalErrors: 0,
  };
  const expectCounters = (a: Activity, expected: Partial<ReturnType<typeof counters>>) =>
    expect(counters(a)).toEqual({ ...zero, status: 'Complete', ...expected });

  const importHr = () => stack.run(ids.hr.id, ids.hr.profiles.FullImport);
  const deltaSyncHr = () => stack.run(ids.hr.id, ids.hr.profiles.DeltaSynchronisation);
  const exportDirectory = () => stack.run(ids.directory.id, ids.directory.profiles.Export);
  const api = () => stack.api;
  const userCount = async () =>
    (await unwrap(api().GET('/api/v1/metaverse/objects', { params: { query: { objectTypeId: ids.userTypeId, pageSize: 1 } } }))).totalCount;
  const connectorSpaceCount = async (connectedSystemId: number) =>
    (
      await unwrap(
        api().GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space', {
          params: { path: { connectedSystemId }, query: { pageSize: 1 } },
        }),
      )
    ).totalCount;
  const connectorSpace = (connectedSystemId: number, query: ConnectorSpaceQuery = {}) =>
    stack.all((page, pageSize) =>
      api().GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space', {
        params: { path: { connectedSystemId }, query: { ...query, page, pageSize } },
      }),
    );
  const pendingExports = (connectedSystemId: number) =>
    stack.all((page, pageSize) =>
      api().GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/pending-exports', {
        params: { path: { connectedSystemId }, query: { page, pageSize } },
      }),
    );
  const connectedSystem = (connectedSystemId: number) =>
    unwrap(api().GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}', { params: { path: { connectedSystemId } } }));
  const setGracePeriod = (deletionGracePeriod: string | null) =>
    unwrap(api().PUT('/api/v1/metaverse/object-types/{id}', { params: { path: { id: ids.userTypeId } }, body: { deletionGracePeriod } }));
  const pendingDeletionCount = () => unwrap(api().GET('/api/v1/metaverse/pending-deletions/count'));
  const userByEmployeeId = async (employeeId: string) => {
    const page = await unwrap(
      api().GET('/api/v1/metaverse/objects', {
        params: { query: { objectTypeId: ids.userTypeId, filterAttributeName: 'Employee ID', filterAttributeValue: employeeId } },
      }),
    );
    expect(page.totalCount).toBe(1);
    return unwrap(api().GET('/api/v1/metaverse/objects/{id}', { params: { path: { id: page.items[0].id } } }));
  };
  const valueOf = (user: MetaverseObjectDetail, attribute: string) => user.attributeValues.find((v) => v.attributeName === attribute);
  const directoryLines = () =>
    readFileSync(directoryFile(), 'utf8')
      .split('\n')
      .filter((l) => l);

  beforeAll(async () => {
    stack = await EngineStack.start('e2epipeline');
    await writeHrCsv(hrFile(), ROWS);
    people = Array.from({ length: ROWS }, (_, i) => hrRecord(i + 1));
    ids = await configurePipeline(stack, PAGE_SIZE);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('joiners: every HR row is imported, projected, provisioned and exported with its mapped values; the confirming import finds nothing to do', async () => {
    const imported = await importHr();
    expectCounters(imported, { objectsProcessed: ROWS, totalAdded: ROWS });

    const synced = await stack.run(ids.hr.id, ids.hr.profiles.FullSynchronisation);
    expectCounters(synced, { objectsProcessed: ROWS, totalProjected: ROWS, totalProvisioned: ROWS, totalPendingExports: ROWS });
    expect(await userCount()).toBe(ROWS);
    const items = await stack.items(synced.id);
    expect(items).toHaveLength(ROWS);
    expect(new Set(items.map((i) => i.outcomeSummary))).toEqual(
      new Set(['Projected:1,AttributeFlow:10,Provisioned:1,PendingExportCreated:1']),
    );
    const staged = await pendingExports(ids.directory.id);
    expect(staged).toHaveLength(ROWS);
    expect(staged.every((p) => p.changeType === 'Create' && p.status === 'Pending')).toBe(true);

    const exported = await exportDirectory();
    expectCounters(exported, { objectsProcessed: ROWS, totalExported: ROWS });
    const file = readCsv(directoryFile());
    expect(file.header).toEqual([...DIRECTORY_COLUMNS]);
    expect(file.rows).toHaveLength(ROWS);
    expect(new Map(file.rows.map((r) => [r.employeeId, r]))).toEqual(new Map(people.map((p) => [p.employeeId, expectedDirectoryRow(p)])));
    expect(await pendingExports(ids.directory.id)).toEqual([]);

    const accounts = await connectorSpace(ids.directory.id);
    expect(accounts).toHaveLength(ROWS);
    expect(accounts.every((a) => a.status === 'Normal' && a.joinType === 'Provisioned' && a.metaverseObjectId && a.externalId)).toBe(true);

    // The objects took the exported values, so the confirming import reads back exactly what they hold.
    const confirming = await stack.run(ids.directory.id, ids.directory.profiles.FullImport);
    expect(await pendingExports(ids.directory.id)).toEqual([]);
    expectCounters(confirming, { objectsProcessed: ROWS });
  });

  it('an unchanged source: the import changes nothing and the delta synchronisation has nothing to process', async () => {
    expectCounters(await importHr(), { objectsProcessed: ROWS });
    expectCounters(await deltaSyncHr(), {});
    expectCounters(await exportDirectory(), {});
  });

  it('a mover: one department change flows to the metaverse and changes exactly one directory row', async () => {
    const mover = people[6];
    expect(mover.department).not.toBe('Legal');
    people[6] = { ...mover, department: 'Legal' };
    writeHrRecords(hrFile(), people);

    const imported = await importHr();
    expectCounters(imported, { objectsProcessed: ROWS, totalUpdated: 1 });
    expect((await stack.items(imported.id)).map((i) => [i.externalIdValue, i.objectChangeType])).toEqual([[mover.employeeId, 'Update']]);

    const synced = await deltaSyncHr();
    expectCounters(synced, { objectsProcessed: 1, totalAttributeFlows: 1, totalPendingExports: 1 });
    const [item] = await stack.items(synced.id);
    expect(item.externalIdValue).toBe(mover.employeeId);
    expect(item.outcomeSummary?.split(',')).toContain('AttributeFlow:1');
    const [update] = await pendingExports(ids.directory.id);
    expect(update).toMatchObject({
      changeType: 'Update',
      externalId: mover.employeeId,
      attributeChanges: [expect.objectContaining({ attributeName: 'department', operation: 'Replace', values: ['Legal'] })],
    });

    const before = directoryLines();
    expectCounters(await exportDirectory(), { objectsProcessed: 1, totalExported: 1 });
    const after = directoryLines();
    expect(after).toHaveLength(before.length);
    const changed = after.map((line, i) => [before[i], line]).filter(([b, a]) => a !== b);
    expect(changed).toHaveLength(1);
    expect(readCsv(directoryFile()).rows.find((r) => r.employeeId === mover.employeeId)).toEqual(expectedDirectoryRow(people[6]));
    expect(await pendingExports(ids.directory.id)).toEqual([]);
  });

  it('a leaver without grace period: the metaverse object is deleted in the synchronisation and the directory row is removed', async () => {
    const leaver = people[149];
    people = people.filter((p) => p !== leaver);
    writeHrRecords(hrFile(), people);

    expectCounters(await importHr(), { objectsProcessed: ROWS - 1, totalDeleted: 1 });
    const synced = await deltaSyncHr();
    expectCounters(synced, { objectsProcessed: 1, totalDeleted: 1, totalDisconnected: 1, totalPendingExports: 1 });
    expect((await stack.items(synced.id)).map((i) => [i.externalIdValue, i.objectChangeType, i.outcomeSummary])).toEqual([
      [leaver.employeeId, 'Delete', 'Disconnected:1,MetaverseObjectDeleted:1,PendingExportCreated:1'],
    ]);
    expect(await userCount()).toBe(ROWS - 1);
    const staged = await pendingExports(ids.directory.id);
    expect(staged).toEqual([expect.objectContaining({ changeType: 'Delete', externalId: leaver.employeeId })]);

    const before = directoryLines();
    expectCounters(await exportDirectory(), { objectsProcessed: 1, totalExported: 1, totalDeprovisioned: 1 });
    const after = directoryLines();
    expect(after).toEqual(before.filter((l) => !l.startsWith(`${leaver.employeeId},`)));
    expect(after).toHaveLength(before.length - 1);
    expect(await connectorSpaceCount(ids.directory.id)).toBe(ROWS - 1);
    expect(await connectorSpaceCount(ids.hr.id)).toBe(ROWS - 1);
  });

  it('a leaver with a grace period becomes a pending deletion, and coming back within it cancels the deletion', async () => {
    await setGracePeriod('1.00:00:00');
    const leaver = people[159];
    const user = await userByEmployeeId(leaver.employeeId);
    writeHrRecords(
      hrFile(),
      people.filter((p) => p !== leaver),
    );

    expectCounters(await importHr(), { objectsProcessed: ROWS - 2, totalDeleted: 1 });
    const synced = await deltaSyncHr();
    expectCounters(synced, { objectsProcessed: 1, totalDisconnected: 1 });
    expect((await stack.items(synced.id)).map((i) => [i.externalIdValue, i.outcomeSummary])).toEqual([
      [leaver.employeeId, 'Disconnected:1,PendingDeletion:1'],
    ]);
    expect(await pendingDeletionCount()).toBe(1);
    const pending = await unwrap(api().GET('/api/v1/metaverse/pending-deletions'));
    expect(pending.items).toEqual([
      expect.objectContaining({
        id: user.id,
        gracePeriod: '1.00:00:00',
        daysUntilDeletion: 0,
        connectedSystemObjectCount: 1,
        status: 'Deprovisioning',
      }),
    ]);
    expect(await userCount()).toBe(ROWS - 1);
    expect(await pendingExports(ids.directory.id)).toEqual([]);

    writeHrRecords(hrFile(), people);
    expectCounters(await importHr(), { objectsProcessed: ROWS - 1, totalAdded: 1 });
    const rejoined = await deltaSyncHr();
    expectCounters(rejoined, { objectsProcessed: 1, totalJoined: 1 });
    expect((await stack.items(rejoined.id)).map((i) => [i.externalIdValue, i.outcomeSummary])).toEqual([[leaver.employeeId, 'Joined:1']]);
    expect(await pendingDeletionCount()).toBe(0);
    expect(await userCount()).toBe(ROWS - 1);
    const back = await userByEmployeeId(leaver.employeeId);
    expect(back).toMatchObject({ id: user.id, isPendingDeletion: false });
    expect(back.connectedSystemObjects.map((c) => c.connectedSystemId).sort()).toEqual([ids.hr.id, ids.directory.id].sort());
    expectCounters(await exportDirectory(), {});
    await setGracePeriod(null);
  });

  it('attribute priority: a second source with a better priority wins Email, and when it lets go HR takes over again in the same run', async () => {
    const crmColumns = ['employeeId', 'email'];
    const ada = people[6];
    const crmRows = [
      { employeeId: ada.employeeId, email: 'ada@crm.example' },
      { employeeId: people[7].employeeId, email: 'grace@crm.example' },
    ];
    writeCsv(stack.path('crm/contacts.csv'), crmColumns, crmRows);
    const crm = await unwrap(
      api().POST('/api/v1/synchronisation/connected-systems', {
        body: { name: 'CRM', connectorType: 'File', settings: { filePath: 'crm/contacts.csv', mode: 'Import', objectType: 'contact' } },
      }),
      201,
    );
    const system = { connectedSystemId: crm.id };
    await unwrap(api().POST('/api/v1/synchronisation/connected-systems/{connectedSystemId}/schema/import', { params: { path: system } }));
    const [contact] = await unwrap(
      api().GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types', { params: { path: system } }),
    );
    const crmAttr = (name: string) => contact.attributes.find((a) => a.name === name)!.id;
    const objectType = { ...system, objectTypeId: contact.id };
    await unwrap(
      api().PUT('/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}', {
        params: { path: objectType },
        body: { selected: true },
      }),
    );
    const setAttribute = (attributeId: number, body: Schema<'UpdateAttributeDto'>) =>
      unwrap(
        api().PUT('/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}/attributes/{attributeId}', {
          params: { path: { ...objectType, attributeId } },
          body,
        }),
      );
    await setAttribute(crmAttr('employeeId'), { isExternalId: true });
    await setAttribute(crmAttr('email'), { selected: true });
    const profile = async (runType: Schema<'CreateRunProfileDto'>['runType']) =>
      (
        await unwrap(
          api().POST('/api/v1/synchronisation/connected-systems/{connectedSystemId}/run-profiles', {
            params: { path: system },
            body: { name: runType, runType, pageSize: PAGE_SIZE },
          }),
          201,
        )
      ).id;
    const crmImport = await profile('FullImport');
    const crmFullSync = await profile('FullSynchronisation');
    const crmDeltaSync = await profile('DeltaSynchronisation');
    const mv = await metaverseAttributes(stack, ids.userTypeId);
    const rule = await unwrap(
      api().POST('/api/v1/synchronisation/sync-rules', {
        body: {
          name: 'CRM contacts → Users',
          connectedSystemId: crm.id,
          direction: 'Import',
          connectedSystemObjectTypeId: contact.id,
          metaverseObjectTypeId: ids.userTypeId,
        },
      }),
      201,
    );
    const crmEmail = await unwrap(
      api().POST('/api/v1/synchronisation/sync-rules/{syncRuleId}/mappings', {
        params: { path: { syncRuleId: rule.id } },
        body: {
          targetMetaverseAttributeId: mv.Email,
          sources: [{ connectedSystemAttributeId: crmAttr('email') }],
          priority: 1,
        },
      }),
      201,
    );
    await unwrap(
      api().POST('/api/v1/synchronisation/sync-rules/{syncRuleId}/matching-rules', {
        params: { path: { syncRuleId: rule.id } },
        body: { connectedSystemAttributeIds: [crmAttr('employeeId')], metaverseAttributeId: mv['Employee ID'] },
      }),
      201,
    );
    // The new contributor moved HR's Email mapping down: HR's next synchronisation must be a full one, and it changes nothing yet.
    expect(await connectedSystem(ids.hr.id)).toMatchObject({ fullSyncRequired: true });
    expectCounters(await stack.run(ids.hr.id, ids.hr.profiles.FullSynchronisation), { objectsProcessed: ROWS - 1 });
    expect(await connectedSystem(ids.hr.id)).toMatchObject({ fullSyncRequired: false });
    const priorities = await unwrap(
      api().GET('/api/v1/synchronisation/attribute-priorities', {
        params: { query: { metaverseObjectTypeId: ids.userTypeId, metaverseAttributeId: mv.Email } },
      }),
    );
    expect(priorities.map((p) => [p.mappingId, p.priority])).toEqual([
      [crmEmail.id, 1],
      [ids.hrMappings.Email, 2],
    ]);

    expectCounters(await stack.run(crm.id, crmImport), { objectsProcessed: 2, totalAdded: 2 });
    const joined = await stack.run(crm.id, crmFullSync);
    expectCounters(joined, { objectsProcessed: 2, totalJoined: 2, totalPendingExports: 2 });
    expect(await userCount()).toBe(ROWS - 1);
    const email = valueOf(await userByEmployeeId(ada.employeeId), 'Email');
    expect(email).toMatchObject({ stringValue: 'ada@crm.example', contributedBySystemId: crm.id, contributedBySystemName: 'CRM' });
    expectCounters(await exportDirectory(), { objectsProcessed: 2, totalExported: 2 });
    expect(readCsv(directoryFile()).rows.find((r) => r.employeeId === ada.employeeId)).toEqual(
      expectedDirectoryRow(people[6], 'ada@crm.example'),
    );

    writeCsv(stack.path('crm/contacts.csv'), crmColumns, crmRows.slice(1));
    expectCounters(await stack.run(crm.id, crmImport), { objectsProcessed: 1, totalDeleted: 1 });
    const left = await stack.run(crm.id, crmDeltaSync);
    expectCounters(left, { objectsProcessed: 1, totalDisconnected: 1, totalPendingExports: 1 });
    const back = await userByEmployeeId(ada.employeeId);
    expect(valueOf(back, 'Email')).toMatchObject({
      stringValue: ada.email,
      contributedBySystemId: ids.hr.id,
      contributedBySystemName: 'HR',
    });
    expect(back.connectedSystemObjects).toHaveLength(2);
    expectCounters(await exportDirectory(), { objectsProcessed: 1, totalExported: 1 });
    expect(readCsv(directoryFile()).rows.find((r) => r.employeeId === ada.employeeId)).toEqual(expectedDirectoryRow(people[6]));
    expect(await userCount()).toBe(ROWS - 1);
  });

  it('rejected rows: a duplicated employeeId rejects both occurrences and a row without one is refused; nothing else changes', async () => {
    const twin = people[19];
    const rows = [...people, { ...hrRecord(ROWS + 1), employeeId: twin.employeeId }, { ...hrRecord(ROWS + 2), employeeId: '' }];
    writeHrRecords(hrFile(), rows);
    const before = await connectorSpaceCount(ids.hr.id);

    const imported = await importHr();
    expect(counters(imported)).toEqual({ ...zero, status: 'CompleteWithError', objectsProcessed: ROWS + 1, totalErrors: 3 });
    const items = await stack.items(imported.id);
    expect(items.map((i) => [i.errorType, i.externalIdValue]).sort()).toEqual([
      ['DuplicateObject', twin.employeeId],
      ['DuplicateObject', twin.employeeId],
      ['MissingExternalIdAttributeValue', null],
    ]);
    expect(await connectorSpaceCount(ids.hr.id)).toBe(before);
    const kept = await connectorSpace(ids.hr.id, { search: twin.employeeId });
    expect(kept).toEqual([expect.objectContaining({ externalId: twin.employeeId, status: 'Normal', displayName: twin.displayName })]);
    const keptValues = (
      await unwrap(
        api().GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space/{objectId}', {
          params: { path: { connectedSystemId: ids.hr.id, objectId: kept[0].id } },
        }),
      )
    ).attributeValues;
    expect(keptValues.find((v) => v.attributeName === 'firstName')!.values).toEqual([twin.firstName]);
    expectCounters(await deltaSyncHr(), {});

    writeHrRecords(hrFile(), people);
    expectCounters(await importHr(), { objectsProcessed: ROWS - 1 });
  });

  it('an empty source: a full import that returns nothing deletes nothing and warns', async () => {
    const before = await connectorSpaceCount(ids.hr.id);
    writeHrRecords(hrFile(), []);
    const imported = await importHr();
    expect(counters(imported)).toEqual({ ...zero, status: 'CompleteWithWarning' });
    expect(imported.warningMessage).toMatch(/returned no objects/);
    expect(await connectorSpaceCount(ids.hr.id)).toBe(before);
    expect(await connectorSpace(ids.hr.id, { status: 'Obsolete' })).toEqual([]);
    expectCounters(await deltaSyncHr(), {});
    expect(await userCount()).toBe(ROWS - 1);
  });
});
