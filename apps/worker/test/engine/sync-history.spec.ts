import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { PendingDeletionsProcessor, RunProfileExecutor, SettingsService, SYSTEM_INITIATOR } from '@meridian/application';
import { SettingKeys } from '@meridian/domain';
import { closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment } from '@meridian/testing';
import { Client } from 'pg';
import { createWorker } from '../../src/bootstrap';
import { SyncSeed } from './sync-seed';

/**
 * The change records a synchronisation writes (spec 2.13): metaverse object changes (projection, attribute
 * flow, joins, provisioning, disconnections, deletions, also by housekeeping) and the connector space
 * objects it deletes, with their origin; none when change tracking is off, the run otherwise identical.
 */
describe('synchronisation change records', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  let worker: INestApplicationContext;
  let pg: Client;
  let seed: SyncSeed;
  let files: string;
  const admin = { id: randomUUID(), name: 'Ada Admin' };

  beforeAll(async () => {
    db = await createTestDatabase('engine-sync-history');
    files = mkdtempSync(join(tmpdir(), 'meridian-sync-history-'));
    env = createTestEnvironment(db.url, { MERIDIAN_CONNECTOR_FILES_ROOT: files });
    const config = loadConfig('worker', env.env);
    logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: config.logLevel, console: false });
    worker = await createWorker(config, logger);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    seed = new SyncSeed(pg);
  });

  afterAll(async () => {
    await pg?.end();
    await worker?.close();
    if (logger) await closeLogger(logger);
    await env?.cleanup();
    await db?.drop();
    rmSync(files, { recursive: true, force: true });
  });

  const one = async <T = any>(sql: string, params: unknown[] = []): Promise<T> => (await pg.query(sql, params)).rows[0];
  const all = async <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => (await pg.query(sql, params)).rows;

  /** Runs a profile as an administrator started it; resolves to the finished activity row. */
  async function run(systemId: number, profileId: number, runType: string) {
    const { id } = await one(
      `INSERT INTO activity (status, target_type, target_operation_type, target_name, connected_system_id, connected_system_run_profile_id,
                             connected_system_run_type, initiated_by_type, initiated_by_id, initiated_by_name)
       VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', $3, $1, $2, $3, 'User', $4, $5) RETURNING id`,
      [systemId, profileId, runType, admin.id, admin.name],
    );
    const outcome = await worker.get(RunProfileExecutor).execute(id, 'test');
    expect(outcome.state).toBe('done');
    return one(`SELECT * FROM activity WHERE id = $1`, [id]);
  }

  /** The origin columns a record of the given run carries. */
  const by = (activity: { id: string; connected_system_run_profile_id: number }) => ({
    activity_id: activity.id,
    run_profile_id: activity.connected_system_run_profile_id,
    initiated_by_type: 'User',
    initiated_by_id: admin.id,
    initiated_by_name: admin.name,
  });

  const MVO_RECORD = `change_type, metaverse_object_id, object_type_id, display_name, attribute_changes, connected_system_id,
    connected_system_object_id, activity_id, run_profile_id, initiated_by_type, initiated_by_id, initiated_by_name, object_type_name`;
  const mvoRecords = (mvoId: string, activityId?: string) =>
    all(
      `SELECT ${MVO_RECORD} FROM metaverse_object_change WHERE metaverse_object_id = $1 AND ($2::uuid IS NULL OR activity_id = $2) ORDER BY id`,
      [mvoId, activityId ?? null],
    );
  const recordCount = async () =>
    Number(
      (await one(`SELECT (SELECT count(*) FROM metaverse_object_change) + (SELECT count(*) FROM connected_system_object_change) AS n`)).n,
    );
  const csoId = async (systemId: number, externalId: string) =>
    (await one(`SELECT id FROM connected_system_object WHERE connected_system_id = $1 AND external_id = $2`, [systemId, externalId])).id;
  const mvoOf = async (employeeId: string) =>
    (await one(`SELECT id FROM metaverse_object WHERE attributes -> $1::text -> 0 ->> 'v' = $2`, [String(mv.employeeId), employeeId])).id;
  const placeholderOf = async (mvoId: string) =>
    (await one(`SELECT id FROM connected_system_object WHERE connected_system_id = $1 AND metaverse_object_id = $2`, [dir.id, mvoId])).id;
  const counters = (a: Record<string, unknown>) => Object.fromEntries(Object.entries(a).filter(([k]) => k.startsWith('total_')));

  let user: number;
  let mv: Record<'employeeId' | 'display' | 'email' | 'department', number>;
  let hr: Awaited<ReturnType<SyncSeed['system']>>;
  let dir: Awaited<ReturnType<SyncSeed['system']>>;

  /** An HR-like source projecting users (employee ID, display name from first and last name, email, department). */
  async function source(name: string) {
    const sys = await seed.system(name, 'person', ['employeeId', 'firstName', 'lastName', 'email', 'department']);
    const rule = await seed.rule({
      name: `${name} in`,
      systemId: sys.id,
      typeId: sys.typeId,
      direction: 'Import',
      mvTypeId: user,
      project: true,
    });
    await seed.inbound(rule, mv.employeeId, { cs: sys.attributes.employeeId });
    await seed.inbound(rule, mv.display, { expression: 'cs["firstName"] + " " + cs["lastName"]' });
    await seed.inbound(rule, mv.email, { cs: sys.attributes.email }, { priority: 2 });
    await seed.inbound(rule, mv.department, { cs: sys.attributes.department });
    await seed.matching(rule, [sys.attributes.employeeId], mv.employeeId);
    const person = (id: string, extra: { department?: string; status?: string } = {}) => ({
      externalId: id,
      status: extra.status,
      values: {
        [sys.attributes.employeeId]: [id],
        [sys.attributes.firstName]: [`First${id}`],
        [sys.attributes.lastName]: [`Last${id}`],
        [sys.attributes.email]: [`${id.toLowerCase()}@hr.example`],
        [sys.attributes.department]: [extra.department ?? 'Sales'],
      },
    });
    return { sys, rule, person };
  }

  it('records projection, provisioning, attribute flow, joins, disconnections and deletions with their origin', async () => {
    user = await seed.mvType('User');
    mv = {
      employeeId: await seed.mvAttribute('Employee ID'),
      display: await seed.mvAttribute('Display Name'),
      email: await seed.mvAttribute('Email'),
      department: await seed.mvAttribute('Department'),
    };
    const hrSource = await source('HR');
    hr = hrSource.sys;
    const person = hrSource.person;
    await pg.query(
      `UPDATE metaverse_object_type SET deletion_rule = 'WhenAuthoritativeSourceDisconnected', deletion_trigger_connected_system_ids = ARRAY[$2::int]
        WHERE id = $1`,
      [user, hr.id],
    );
    dir = await seed.system('Directory', 'user', ['uid', 'displayName', 'mail', 'dept'], 'Export');
    const out = await seed.rule({
      name: 'Directory out',
      systemId: dir.id,
      typeId: dir.typeId,
      direction: 'Export',
      mvTypeId: user,
      provision: true,
      deprovision: 'Delete',
    });
    await seed.outbound(out, dir.attributes.uid, { mv: mv.employeeId });
    await seed.outbound(out, dir.attributes.displayName, { mv: mv.display });
    await seed.outbound(out, dir.attributes.mail, { mv: mv.email });
    await seed.outbound(out, dir.attributes.dept, { mv: mv.department });
    await seed.objects(hr.id, hr.typeId, [person('E1'), person('E2'), person('E3')]);

    // Joiners: each projected object is recorded with every value and its source, then its provisioning.
    const joiners = await run(hr.id, hr.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(joiners).toMatchObject({ status: 'Complete', total_projected: 3, total_provisioned: 3 });
    const e1 = await mvoOf('E1');
    const e1Cso = await csoId(hr.id, 'E1');
    const projected = {
      metaverse_object_id: e1,
      object_type_id: user,
      display_name: 'FirstE1 LastE1',
      object_type_name: null,
      ...by(joiners),
    };
    expect(await mvoRecords(e1)).toEqual([
      {
        ...projected,
        change_type: 'Projected',
        attribute_changes: [
          { a: mv.employeeId, o: [], n: ['E1'], s: hr.id },
          { a: mv.display, o: [], n: ['FirstE1 LastE1'], s: hr.id },
          { a: mv.email, o: [], n: ['e1@hr.example'], s: hr.id },
          { a: mv.department, o: [], n: ['Sales'], s: hr.id },
        ].sort((p, q) => p.a - q.a),
        connected_system_id: hr.id,
        connected_system_object_id: e1Cso,
      },
      {
        ...projected,
        change_type: 'Provisioned',
        attribute_changes: null,
        connected_system_id: dir.id,
        connected_system_object_id: await placeholderOf(e1),
      },
    ]);
    expect(
      await all(`SELECT change_type, count(*)::int AS n FROM metaverse_object_change WHERE activity_id = $1 GROUP BY 1 ORDER BY 1`, [
        joiners.id,
      ]),
    ).toEqual([
      { change_type: 'Projected', n: 3 },
      { change_type: 'Provisioned', n: 3 },
    ]);
    // Nothing was deleted from the connector space.
    expect(Number((await one(`SELECT count(*) FROM connected_system_object_change`)).count)).toBe(0);

    // Nothing changed: a full synchronisation recomputes everything and records nothing.
    const before = await recordCount();
    const again = await run(hr.id, hr.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(again).toMatchObject({ status: 'Complete', objects_processed: 3, total_projected: 0, total_attribute_flows: 0 });
    expect(await recordCount()).toBe(before);

    // A mover: one record with only the changed attribute, its old and new values and the contributing system.
    const e2 = await mvoOf('E2');
    const e2Cso = await csoId(hr.id, 'E2');
    await seed.objects(hr.id, hr.typeId, [person('E2', { department: 'Legal' })]);
    const mover = await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(mover).toMatchObject({ status: 'Complete', total_attribute_flows: 1 });
    expect(await all(`SELECT ${MVO_RECORD} FROM metaverse_object_change WHERE activity_id = $1`, [mover.id])).toEqual([
      {
        change_type: 'AttributeFlow',
        metaverse_object_id: e2,
        object_type_id: user,
        display_name: 'FirstE2 LastE2',
        attribute_changes: [{ a: mv.department, o: ['Sales'], n: ['Legal'], s: hr.id }],
        connected_system_id: hr.id,
        connected_system_object_id: e2Cso,
        object_type_name: null,
        ...by(mover),
      },
    ]);

    // A join by matching rule, whose better-priority email takes over.
    const crm = await seed.system('CRM', 'contact', ['id', 'mail']);
    const crmRule = await seed.rule({ name: 'CRM in', systemId: crm.id, typeId: crm.typeId, direction: 'Import', mvTypeId: user });
    await seed.inbound(crmRule, mv.email, { cs: crm.attributes.mail }, { priority: 1 });
    await seed.matching(crmRule, [crm.attributes.id], mv.employeeId);
    await seed.objects(crm.id, crm.typeId, [
      { externalId: 'E1', values: { [crm.attributes.id]: ['E1'], [crm.attributes.mail]: ['ada@crm.example'] } },
    ]);
    const crmCso = await csoId(crm.id, 'E1');
    const crmJoin = await run(crm.id, crm.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(crmJoin).toMatchObject({ status: 'Complete', total_joined: 1 });
    const e1Base = { metaverse_object_id: e1, object_type_id: user, display_name: 'FirstE1 LastE1', object_type_name: null };
    expect(await mvoRecords(e1, crmJoin.id)).toEqual([
      {
        ...e1Base,
        ...by(crmJoin),
        change_type: 'Joined',
        attribute_changes: null,
        connected_system_id: crm.id,
        connected_system_object_id: crmCso,
      },
      {
        ...e1Base,
        ...by(crmJoin),
        change_type: 'AttributeFlow',
        attribute_changes: [{ a: mv.email, o: ['e1@hr.example'], n: ['ada@crm.example'], s: crm.id }],
        connected_system_id: crm.id,
        connected_system_object_id: crmCso,
      },
    ]);

    // The winner leaves: the runner-up's value flows in the same run, recorded with the new contributor;
    // the obsolete object is deleted from the connector space and recorded with its names.
    await pg.query(`UPDATE connected_system_object SET status = 'Obsolete', sync_pending = true WHERE connected_system_id = $1`, [crm.id]);
    const crmLeaves = await run(crm.id, crm.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(crmLeaves).toMatchObject({ status: 'Complete', total_disconnected: 1, total_deleted: 0 });
    expect(await mvoRecords(e1, crmLeaves.id)).toEqual([
      {
        ...e1Base,
        ...by(crmLeaves),
        change_type: 'Disconnected',
        attribute_changes: null,
        connected_system_id: crm.id,
        connected_system_object_id: crmCso,
      },
      {
        ...e1Base,
        ...by(crmLeaves),
        change_type: 'AttributeFlow',
        attribute_changes: [{ a: mv.email, o: ['ada@crm.example'], n: ['e1@hr.example'], s: hr.id }],
        connected_system_id: crm.id,
        connected_system_object_id: crmCso,
      },
    ]);
    const CSO_RECORD = `change_type, connected_system_id, connected_system_object_id, object_type_id, external_id, display_name, attribute_changes,
      activity_id, run_profile_id, initiated_by_type, initiated_by_id, initiated_by_name, object_type_name, connected_system_name`;
    expect(await all(`SELECT ${CSO_RECORD} FROM connected_system_object_change WHERE activity_id = $1`, [crmLeaves.id])).toEqual([
      {
        change_type: 'Deleted',
        connected_system_id: crm.id,
        connected_system_object_id: crmCso,
        object_type_id: crm.typeId,
        external_id: 'E1',
        display_name: 'E1',
        attribute_changes: null,
        ...by(crmLeaves),
        object_type_name: 'contact',
        connected_system_name: 'CRM',
      },
    ]);

    // A leaver without grace period: disconnected (with its never-exported directory placeholder, removed
    // without a record of its own in the connector space), then the metaverse object deleted with its names.
    const e3 = await mvoOf('E3');
    const e3Cso = await csoId(hr.id, 'E3');
    const e3Placeholder = await placeholderOf(e3);
    await seed.objects(hr.id, hr.typeId, [person('E3', { status: 'Obsolete' })]);
    const leaver = await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(leaver).toMatchObject({ status: 'Complete', total_deleted: 1, total_disconnected: 1 });
    const e3Base = {
      metaverse_object_id: e3,
      object_type_id: user,
      display_name: 'FirstE3 LastE3',
      attribute_changes: null,
      ...by(leaver),
    };
    expect(await mvoRecords(e3)).toEqual([
      expect.objectContaining({ change_type: 'Projected' }),
      expect.objectContaining({ change_type: 'Provisioned' }),
      { ...e3Base, change_type: 'Disconnected', connected_system_id: hr.id, connected_system_object_id: e3Cso, object_type_name: null },
      {
        ...e3Base,
        change_type: 'Disconnected',
        connected_system_id: dir.id,
        connected_system_object_id: e3Placeholder,
        object_type_name: null,
      },
      { ...e3Base, change_type: 'Deleted', connected_system_id: hr.id, connected_system_object_id: e3Cso, object_type_name: 'User' },
    ]);
    expect(await all(`SELECT ${CSO_RECORD} FROM connected_system_object_change WHERE activity_id = $1`, [leaver.id])).toEqual([
      {
        change_type: 'Deleted',
        connected_system_id: hr.id,
        connected_system_object_id: e3Cso,
        object_type_id: hr.typeId,
        external_id: 'E3',
        display_name: 'E3',
        attribute_changes: null,
        ...by(leaver),
        object_type_name: 'person',
        connected_system_name: 'HR',
      },
    ]);

    // A leaver with a grace period: only the disconnection; housekeeping records the deletion once the grace period has passed.
    await pg.query(`UPDATE metaverse_object_type SET deletion_grace_period_seconds = 86400 WHERE id = $1`, [user]);
    const e2Placeholder = await placeholderOf(e2);
    await seed.objects(hr.id, hr.typeId, [person('E2', { department: 'Legal', status: 'Obsolete' })]);
    const graceful = await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(graceful).toMatchObject({ status: 'Complete', total_deleted: 0, total_disconnected: 1 });
    expect(await mvoRecords(e2, graceful.id)).toEqual([
      {
        metaverse_object_id: e2,
        object_type_id: user,
        display_name: 'FirstE2 LastE2',
        change_type: 'Disconnected',
        attribute_changes: null,
        connected_system_id: hr.id,
        connected_system_object_id: e2Cso,
        object_type_name: null,
        ...by(graceful),
      },
    ]);
    await pg.query(`UPDATE metaverse_object SET deletion_eligible_date = now() - interval '1 minute' WHERE id = $1`, [e2]);
    expect(await worker.get(PendingDeletionsProcessor).deleteExpired()).toBe(1);
    const housekeeping = await one(`SELECT id FROM activity WHERE target_type = 'MetaverseObject' AND target_operation_type = 'Delete'`);
    const byHousekeeping = {
      activity_id: housekeeping.id,
      run_profile_id: null,
      initiated_by_type: 'System',
      initiated_by_id: null,
      initiated_by_name: 'Housekeeping',
    };
    const e2Base = {
      metaverse_object_id: e2,
      object_type_id: user,
      display_name: 'FirstE2 LastE2',
      attribute_changes: null,
      ...byHousekeeping,
    };
    expect(await mvoRecords(e2, housekeeping.id)).toEqual([
      {
        ...e2Base,
        change_type: 'Disconnected',
        connected_system_id: dir.id,
        connected_system_object_id: e2Placeholder,
        object_type_name: null,
      },
      { ...e2Base, change_type: 'Deleted', connected_system_id: null, connected_system_object_id: null, object_type_name: 'User' },
    ]);
    // The placeholder it removed never existed in the directory: no connector space record.
    expect(Number((await one(`SELECT count(*) FROM connected_system_object_change WHERE activity_id = $1`, [housekeeping.id])).count)).toBe(
      0,
    );
  });

  it('records nothing of a kind whose tracking is off, the run otherwise identical', async () => {
    const settings = worker.get(SettingsService);
    const tracked = await source('Tracked');
    const untracked = await source('Untracked');
    await seed.objects(tracked.sys.id, tracked.sys.typeId, [tracked.person('T1'), tracked.person('T2')]);
    await seed.objects(untracked.sys.id, untracked.sys.typeId, [untracked.person('U1'), untracked.person('U2')]);

    const on = await run(tracked.sys.id, tracked.sys.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(Number((await one(`SELECT count(*) FROM metaverse_object_change WHERE activity_id = $1`, [on.id])).count)).toBe(4);
    await settings.set(SettingKeys.MvoChangeTracking, false, SYSTEM_INITIATOR);
    try {
      const off = await run(untracked.sys.id, untracked.sys.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(counters(off)).toEqual(counters(on));
      expect(off).toMatchObject({ status: 'Complete', total_projected: 2, total_provisioned: 2 });
      expect(Number((await one(`SELECT count(*) FROM metaverse_object_change WHERE activity_id = $1`, [off.id])).count)).toBe(0);

      // Connector space tracking still on: the leaver's deletion is recorded, its metaverse changes are not.
      await seed.objects(untracked.sys.id, untracked.sys.typeId, [untracked.person('U1', { status: 'Obsolete' })]);
      const leaver = await run(untracked.sys.id, untracked.sys.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
      expect(leaver).toMatchObject({ status: 'Complete', total_disconnected: 1 });
      expect(Number((await one(`SELECT count(*) FROM metaverse_object_change WHERE activity_id = $1`, [leaver.id])).count)).toBe(0);
      expect(await all(`SELECT change_type, external_id FROM connected_system_object_change WHERE activity_id = $1`, [leaver.id])).toEqual([
        { change_type: 'Deleted', external_id: 'U1' },
      ]);

      // Both off: the next leaver leaves no record at all.
      await settings.set(SettingKeys.CsoChangeTracking, false, SYSTEM_INITIATOR);
      await seed.objects(untracked.sys.id, untracked.sys.typeId, [untracked.person('U2', { status: 'Obsolete' })]);
      const quiet = await run(untracked.sys.id, untracked.sys.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
      expect(quiet).toMatchObject({ status: 'Complete', total_disconnected: 1 });
      expect(
        await one(`SELECT count(*)::int AS n FROM connected_system_object WHERE connected_system_id = $1`, [untracked.sys.id]),
      ).toEqual({
        n: 0,
      });
      expect(
        await one(
          `SELECT (SELECT count(*) FROM metaverse_object_change WHERE activity_id = $1)::int AS mvo,
                  (SELECT count(*) FROM connected_system_object_change WHERE activity_id = $1)::int AS cso`,
          [quiet.id],
        ),
      ).toEqual({ mvo: 0, cso: 0 });
    } finally {
      await settings.revert(SettingKeys.MvoChangeTracking, SYSTEM_INITIATOR);
      await settings.revert(SettingKeys.CsoChangeTracking, SYSTEM_INITIATOR);
    }
  });
});
