import { ApiResult, ConnectorSpaceObjectChange, MetaverseObjectChange, paths, unwrap } from '@meridian/api-client';
import { hrRecord, HrRecord, writeHrCsv } from '@meridian/testing';
import { Activity, configurePipeline, EngineStack, PipelineIds, writeHrRecords } from './engine-stack';

const ROWS = 30;
const PAGE_SIZE = 10;

type Change = ConnectorSpaceObjectChange | MetaverseObjectChange;

/**
 * Change history over HTTP with the built processes (spec 2.13, 4.10): what the joiner, mover and leaver
 * runs of an HR file → metaverse → directory file pipeline leave in the history of each object, with the
 * values, the activity and the initiator; the deleted-object lists; the count per system; and the
 * change-tracking settings switching each kind of record off.
 */
describe('history: change records of real runs (real processes)', () => {
  let stack: EngineStack;
  let ids: PipelineIds;
  let people: HrRecord[];
  const hrFile = () => stack.path('hr/people.csv');

  const importHr = () => stack.run(ids.hr.id, ids.hr.profiles.FullImport);
  const fullSyncHr = () => stack.run(ids.hr.id, ids.hr.profiles.FullSynchronisation);
  const deltaSyncHr = () => stack.run(ids.hr.id, ids.hr.profiles.DeltaSynchronisation);
  const exportDirectory = () => stack.run(ids.directory.id, ids.directory.profiles.Export);

  /** Every change of an object, newest first (pages of 2, so paging is exercised too). */
  const history = async <T extends Change>(
    list: (page: number, pageSize: number) => Promise<ApiResult<{ items: T[]; totalCount: number }, unknown>>,
  ): Promise<T[]> => {
    const out: T[] = [];
    for (let page = 1; ; page++) {
      const body = await unwrap(list(page, 2));
      expect(Object.keys(body).sort()).toEqual(['items', 'page', 'pageSize', 'totalCount']);
      out.push(...body.items);
      if (page * 2 >= body.totalCount) return out;
    }
  };
  const csoHistory = (connectedSystemId: number, objectId: string) =>
    history((page, pageSize) =>
      stack.api.GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space/{objectId}/history', {
        params: { path: { connectedSystemId, objectId }, query: { page, pageSize } },
      }),
    );
  const mvoHistory = (id: string) =>
    history((page, pageSize) =>
      stack.api.GET('/api/v1/metaverse/objects/{id}/history', { params: { path: { id }, query: { page, pageSize } } }),
    );
  const hrObject = async (employeeId: string) =>
    stack.one<{ id: string; metaverse_object_id: string }>(
      `SELECT id, metaverse_object_id FROM connected_system_object WHERE connected_system_id = $1 AND external_id = $2`,
      [ids.hr.id, employeeId],
    );
  const directoryObjectOf = async (mvoId: string) =>
    stack.one<{ id: string }>(`SELECT id FROM connected_system_object WHERE connected_system_id = $1 AND metaverse_object_id = $2`, [
      ids.directory.id,
      mvoId,
    ]);
  const delta = (change: Change, attributeName: string) => change.attributeChanges.find((a) => a.attributeName === attributeName);
  const origin = (run: Activity) => ({
    activityId: run.id,
    initiatedByType: run.initiatedByType,
    initiatedByName: run.initiatedByName,
  });
  const setTracking = async (kind: 'CsoChanges' | 'MvoChanges', on: boolean) =>
    unwrap(
      stack.api.PUT('/api/v1/service-settings/{key}', { params: { path: { key: `ChangeTracking.${kind}.Enabled` } }, body: { value: on } }),
    );
  const deletedCsos = (query: NonNullable<paths['/api/v1/history/deleted-objects/cso']['get']['parameters']['query']>) =>
    unwrap(stack.api.GET('/api/v1/history/deleted-objects/cso', { params: { query } }));

  beforeAll(async () => {
    stack = await EngineStack.start('e2ehistory');
    await writeHrCsv(hrFile(), ROWS);
    people = Array.from({ length: ROWS }, (_, i) => hrRecord(i + 1));
    ids = await configurePipeline(stack, PAGE_SIZE);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('joiners: the HR object was added with its values, the person projected from it and provisioned, the account added by the export', async () => {
    const imported = await importHr();
    const synced = await fullSyncHr();
    const exported = await exportDirectory();
    expect([imported.status, synced.status, exported.status]).toEqual(['Complete', 'Complete', 'Complete']);
    expect(imported.initiatedByType).toBe('ApiKey');

    const joiner = people[3];
    const hr = await hrObject(joiner.employeeId);
    const [added] = await csoHistory(ids.hr.id, hr.id);
    expect(added).toMatchObject({
      changeType: 'Added',
      externalId: joiner.employeeId,
      runProfileId: ids.hr.profiles.FullImport,
      ...origin(imported),
    });
    expect(delta(added, 'department')).toMatchObject({ oldValues: [], newValues: [joiner.department] });
    expect(delta(added, 'email')).toMatchObject({ oldValues: [], newValues: [joiner.email] });
    expect(await csoHistory(ids.hr.id, hr.id)).toHaveLength(1);

    const person = await mvoHistory(hr.metaverse_object_id);
    expect(person.map((c) => c.changeType).sort()).toEqual(['Projected', 'Provisioned']);
    const projected = person.find((c) => c.changeType === 'Projected')!;
    expect(projected).toMatchObject({ connectedSystemId: ids.hr.id, connectedSystemObjectId: hr.id, ...origin(synced) });
    expect(delta(projected, 'Department')).toMatchObject({
      oldValues: [],
      newValues: [joiner.department],
      contributedBySystemId: ids.hr.id,
    });
    expect(delta(projected, 'Display Name')).toMatchObject({ newValues: [`${joiner.firstName} ${joiner.lastName}`] });
    const account = await directoryObjectOf(hr.metaverse_object_id);
    expect(person.find((c) => c.changeType === 'Provisioned')).toMatchObject({
      connectedSystemId: ids.directory.id,
      connectedSystemObjectId: account.id,
    });

    const [created] = await csoHistory(ids.directory.id, account.id);
    expect(created).toMatchObject({ changeType: 'Added', externalId: joiner.employeeId, ...origin(exported) });
    expect(delta(created, 'department')).toMatchObject({ oldValues: [], newValues: [joiner.department] });

    const count = await unwrap(
      stack.api.GET('/api/v1/history/connected-systems/{connectedSystemId}/count', { params: { path: { connectedSystemId: ids.hr.id } } }),
    );
    expect(count).toEqual({ connectedSystemId: ids.hr.id, connectedSystemName: 'HR', changeRecordCount: ROWS });
  });

  it('an unchanged re-import and synchronisation add no record', async () => {
    const before = await stack.count(
      `SELECT (SELECT count(*) FROM connected_system_object_change) + (SELECT count(*) FROM metaverse_object_change)`,
    );
    await importHr();
    await deltaSyncHr();
    await fullSyncHr();
    await exportDirectory();
    expect(
      await stack.count(`SELECT (SELECT count(*) FROM connected_system_object_change) + (SELECT count(*) FROM metaverse_object_change)`),
    ).toBe(before);
  });

  it('a mover: the department change is one Updated record in HR, one AttributeFlow on the person and one Updated on the account', async () => {
    const mover = people[7];
    const moved = 'Legal';
    expect(mover.department).not.toBe(moved);
    people[7] = { ...mover, department: moved };
    writeHrRecords(hrFile(), people);
    const imported = await importHr();
    const synced = await deltaSyncHr();
    const exported = await exportDirectory();

    const hr = await hrObject(mover.employeeId);
    const [updated] = await csoHistory(ids.hr.id, hr.id);
    expect(updated).toMatchObject({ changeType: 'Updated', ...origin(imported) });
    expect(updated.attributeChanges).toEqual([
      expect.objectContaining({ attributeName: 'department', oldValues: [mover.department], newValues: [moved] }),
    ]);

    const [flow] = await mvoHistory(hr.metaverse_object_id);
    expect(flow).toMatchObject({ changeType: 'AttributeFlow', connectedSystemId: ids.hr.id, ...origin(synced) });
    expect(flow.attributeChanges).toEqual([
      expect.objectContaining({
        attributeName: 'Department',
        oldValues: [mover.department],
        newValues: [moved],
        contributedBySystemId: ids.hr.id,
      }),
    ]);

    const account = await directoryObjectOf(hr.metaverse_object_id);
    const [written] = await csoHistory(ids.directory.id, account.id);
    expect(written).toMatchObject({ changeType: 'Updated', ...origin(exported) });
    expect(written.attributeChanges).toEqual([
      expect.objectContaining({ attributeName: 'department', oldValues: [mover.department], newValues: [moved] }),
    ]);
  });

  it('a leaver: obsoleted and deleted in HR, disconnected and deleted in the metaverse, deleted from the directory; the deleted-object lists show them', async () => {
    const leaver = people[19];
    const hr = await hrObject(leaver.employeeId);
    const account = await directoryObjectOf(hr.metaverse_object_id);
    people = people.filter((p) => p !== leaver);
    writeHrRecords(hrFile(), people);
    const imported = await importHr();
    const synced = await deltaSyncHr();
    const exported = await exportDirectory();

    expect((await csoHistory(ids.hr.id, hr.id)).map((c) => [c.changeType, c.activityId])).toEqual([
      ['Deleted', synced.id],
      ['Obsoleted', imported.id],
      ['Added', expect.any(String)],
    ]);
    const ofSync = (await mvoHistory(hr.metaverse_object_id)).filter((c) => c.activityId === synced.id);
    expect(ofSync).toContainEqual(
      expect.objectContaining({ changeType: 'Disconnected', connectedSystemId: ids.hr.id, connectedSystemObjectId: hr.id }),
    );
    expect(ofSync).toContainEqual(expect.objectContaining({ changeType: 'Deleted', ...origin(synced) }));
    expect((await csoHistory(ids.directory.id, account.id))[0]).toMatchObject({ changeType: 'Deleted', ...origin(exported) });

    const mvos = await unwrap(
      stack.api.GET('/api/v1/history/deleted-objects/mvo', { params: { query: { displayNameSearch: leaver.lastName.toUpperCase() } } }),
    );
    expect(mvos.items).toEqual([
      expect.objectContaining({
        id: hr.metaverse_object_id,
        displayName: `${leaver.firstName} ${leaver.lastName}`,
        objectTypeName: 'User',
        objectTypeId: ids.userTypeId,
        ...{ initiatedByType: synced.initiatedByType, initiatedByName: synced.initiatedByName },
      }),
    ]);
    const hrDeleted = await deletedCsos({ connectedSystemId: ids.hr.id, externalIdSearch: leaver.employeeId });
    expect(hrDeleted).toEqual({
      items: [
        expect.objectContaining({ id: hr.id, externalId: leaver.employeeId, connectedSystemId: ids.hr.id, connectedSystemName: 'HR' }),
      ],
      totalCount: 1,
      page: 1,
      pageSize: 50,
    });
    const all = await deletedCsos({ externalIdSearch: leaver.employeeId });
    expect(all.items.map((i) => i.connectedSystemId).sort()).toEqual([ids.hr.id, ids.directory.id].sort());
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await deletedCsos({ fromDate: future })).totalCount).toBe(0);
  });

  it('switching a kind of tracking off stops that kind of record, and only that kind', async () => {
    await setTracking('MvoChanges', false);
    const mover = people[2];
    people[2] = { ...mover, title: 'Principal Analyst' };
    writeHrRecords(hrFile(), people);
    await importHr();
    await deltaSyncHr();
    const hr = await hrObject(mover.employeeId);
    expect((await csoHistory(ids.hr.id, hr.id))[0].changeType).toBe('Updated');
    expect((await mvoHistory(hr.metaverse_object_id)).map((c) => c.changeType).sort()).toEqual(['Projected', 'Provisioned']);

    await setTracking('CsoChanges', false);
    const before = await stack.count(`SELECT count(*) FROM connected_system_object_change`);
    people[2] = { ...people[2], title: 'Lead Analyst' };
    writeHrRecords(hrFile(), people);
    const imported = await importHr();
    expect(imported.totalUpdated).toBe(1);
    expect(await stack.count(`SELECT count(*) FROM connected_system_object_change`)).toBe(before);

    await setTracking('CsoChanges', true);
    await setTracking('MvoChanges', true);
  });

  it('cleanup with the default retention keeps everything these runs wrote', async () => {
    const before = await stack.count(
      `SELECT (SELECT count(*) FROM connected_system_object_change) + (SELECT count(*) FROM metaverse_object_change)`,
    );
    const result = await unwrap(stack.api.POST('/api/v1/history/cleanup'));
    expect(result).toMatchObject({
      csoChangesDeleted: 0,
      mvoChangesDeleted: 0,
      activitiesDeleted: 0,
      oldestRecordDeleted: null,
      newestRecordDeleted: null,
      retentionPeriodDays: 90,
      batchSize: 1000,
    });
    expect(
      await stack.count(`SELECT (SELECT count(*) FROM connected_system_object_change) + (SELECT count(*) FROM metaverse_object_change)`),
    ).toBe(before);
  });
});
