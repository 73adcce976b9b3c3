import { INestApplicationContext } from '@nestjs/common';
import { HousekeepingService, RunProfileExecutor, SettingsService, SyncPage, SYSTEM_INITIATOR } from '@meridian/application';
import { SettingKeys } from '@meridian/domain';
import { closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment } from '@meridian/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkSession, CopyValue, QueuedWrites, StatisticsStore, SyncStore } from '@meridian/persistence';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createWorker } from '../../src/bootstrap';
import { SyncSeed } from './sync-seed';

/** Synchronisation against a real database: projection, join, attribute flow and priority, provisioning, deletion rules. */
describe('synchronisation', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  let worker: INestApplicationContext;
  let pg: Client;
  let seed: SyncSeed;
  let files: string;

  beforeAll(async () => {
    db = await createTestDatabase('engine-sync');
    files = mkdtempSync(join(tmpdir(), 'meridian-sync-'));
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

  async function run(systemId: number, profileId: number, runType: string) {
    const id = await seed.activity(systemId, profileId, runType);
    const outcome = await worker.get(RunProfileExecutor).execute(id, 'test');
    expect(outcome.state).toBe('done');
    return one(`SELECT * FROM activity WHERE id = $1`, [id]);
  }

  /** Runs `work` on a synchronisation store of its own; answers its result and the statements it read with. */
  async function withStore<T>(
    work: (store: SyncStore) => Promise<T>,
  ): Promise<{ result: T; statements: Array<{ sql: string; params: unknown[] }> }> {
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    const result = await BulkSession.with(worker.get(DataSource), async (session) => {
      const rows = session.rows.bind(session);
      jest.spyOn(session, 'rows').mockImplementation(async (sql: string, params?: readonly unknown[]) => {
        statements.push({ sql, params: [...(params ?? [])] });
        return rows(sql, params);
      });
      return work(new SyncStore(session));
    });
    jest.restoreAllMocks();
    return { result, statements };
  }

  /** The nodes of the plan PostgreSQL chooses for a statement. */
  async function planOf(statement: { sql: string; params: unknown[] }): Promise<Array<Record<string, any>>> {
    const { rows: explained } = await pg.query(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params);
    const nodes: Array<Record<string, any>> = [];
    const walk = (node: Record<string, any>) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(explained[0]['QUERY PLAN'][0].Plan);
    return nodes;
  }

  it('projects, flows, provisions, joins by matching, and follows priority and deletion rules', async () => {
    const user = await seed.mvType('User');
    const mv = {
      employeeId: await seed.mvAttribute('Employee ID'),
      display: await seed.mvAttribute('Display Name'),
      email: await seed.mvAttribute('Email'),
      department: await seed.mvAttribute('Department'),
      manager: await seed.mvAttribute('Manager'),
    };
    await pg.query(
      `UPDATE metaverse_object_type SET deletion_rule = 'WhenAuthoritativeSourceDisconnected', deletion_trigger_connected_system_ids = '{}' WHERE id = $1`,
      [user],
    );
    const hr = await seed.system('HR', 'person', [
      'employeeId',
      'firstName',
      'lastName',
      'email',
      'department',
      { name: 'manager', type: 'Reference' },
    ]);
    await pg.query(`UPDATE metaverse_object_type SET deletion_trigger_connected_system_ids = ARRAY[$2::int] WHERE id = $1`, [user, hr.id]);
    const hrRule = await seed.rule({
      name: 'HR in',
      systemId: hr.id,
      typeId: hr.typeId,
      direction: 'Import',
      mvTypeId: user,
      project: true,
    });
    await seed.inbound(hrRule, mv.employeeId, { cs: hr.attributes.employeeId });
    await seed.inbound(hrRule, mv.display, { expression: 'cs["firstName"] + " " + cs["lastName"]' });
    await seed.inbound(hrRule, mv.email, { cs: hr.attributes.email }, { priority: 2 });
    await seed.inbound(hrRule, mv.department, { cs: hr.attributes.department });
    await seed.inbound(hrRule, mv.manager, { cs: hr.attributes.manager });
    await seed.matching(hrRule, [hr.attributes.employeeId], mv.employeeId);

    const dir = await seed.system(
      'Directory',
      'user',
      ['uid', 'displayName', 'mail', 'dept', { name: 'manager', type: 'Reference' }],
      'Export',
    );
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
    await seed.outbound(out, dir.attributes.manager, { mv: mv.manager });

    const a = hr.attributes;
    const person = (i: number, extra: Partial<Record<string, string>> = {}) => ({
      externalId: `E${i}`,
      values: {
        [a.employeeId]: [`E${i}`],
        [a.firstName]: [`First${i}`],
        [a.lastName]: [`Last${i}`],
        [a.email]: [extra.email ?? `p${i}@hr.example`],
        [a.department]: [extra.department ?? 'Sales'],
        [a.manager]: i > 1 ? ['E1'] : [],
      },
    });
    // 120 people over three pages of 50; everyone after the first reports to E1.
    await seed.objects(
      hr.id,
      hr.typeId,
      Array.from({ length: 120 }, (_, i) => person(i + 1)),
    );
    await pg.query(
      `UPDATE connected_system_object c SET resolved_references = jsonb_build_object($2::text, jsonb_build_array(m.id))
                      FROM connected_system_object m WHERE c.connected_system_id = $1 AND m.connected_system_id = $1 AND m.external_id = 'E1' AND c.external_id <> 'E1'`,
      [hr.id, String(a.manager)],
    );

    const first = await run(hr.id, hr.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(first).toMatchObject({
      status: 'Complete',
      total_projected: 120,
      total_provisioned: 120,
      total_pending_exports: 120,
      total_errors: 0,
      objects_processed: 120,
    });
    expect(Number((await one(`SELECT count(*) FROM metaverse_object WHERE type_id = $1`, [user])).count)).toBe(120);
    const ada = await one(
      `SELECT m.* FROM metaverse_object m JOIN connected_system_object c ON c.metaverse_object_id = m.id WHERE c.external_id = 'E7'`,
    );
    expect(ada.display_name).toBe('First7 Last7');
    expect(ada.attributes[mv.email]).toEqual([{ v: 'p7@hr.example', s: hr.id, r: hrRule }]);
    const boss = await one(
      `SELECT m.id FROM metaverse_object m JOIN connected_system_object c ON c.metaverse_object_id = m.id WHERE c.external_id = 'E1'`,
    );
    expect(ada.attributes[mv.manager]).toEqual([{ v: boss.id, s: hr.id, r: hrRule }]);
    const creates = await all(
      `SELECT p.change_type, p.attribute_changes FROM pending_export p JOIN connected_system_object c ON c.id = p.connected_system_object_id
                                WHERE c.connected_system_id = $1 AND c.status = 'PendingProvisioning'`,
      [dir.id],
    );
    expect(creates).toHaveLength(120);
    expect(creates.every((c) => c.change_type === 'Create')).toBe(true);
    const items = await all(`SELECT outcome_summary FROM activity_execution_item WHERE activity_id = $1`, [first.id]);
    expect(items).toHaveLength(120);
    expect(items[0].outcome_summary).toMatch(/^Projected:1,AttributeFlow:\d+,Provisioned:1,PendingExportCreated:1$/);

    // Nothing changed: a delta synchronisation has nothing to do, a full one changes nothing.
    const delta = await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(delta).toMatchObject({ status: 'Complete', objects_processed: 0, total_projected: 0, total_pending_exports: 0 });
    const again = await run(hr.id, hr.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(again).toMatchObject({
      status: 'Complete',
      objects_processed: 120,
      total_projected: 0,
      total_attribute_flows: 0,
      total_pending_exports: 0,
    });

    // A mover: one attribute flows and merges into the unexported Create (no second export).
    await seed.objects(hr.id, hr.typeId, [person(7, { department: 'Legal' })]);
    const mover = await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(mover).toMatchObject({ status: 'Complete', objects_processed: 1, total_attribute_flows: 1, total_pending_exports: 1 });
    const merged = await one(
      `SELECT p.change_type, p.attribute_changes FROM pending_export p JOIN connected_system_object c ON c.id = p.connected_system_object_id
                               WHERE c.metaverse_object_id = $1`,
      [ada.id],
    );
    expect(merged.change_type).toBe('Create');
    expect(merged.attribute_changes).toContainEqual({ a: dir.attributes.dept, op: 'Replace', v: ['Legal'] });

    // A second source with better priority for Email takes over; when it leaves, HR takes over again in the same run.
    const crm = await seed.system('CRM', 'contact', ['id', 'mail']);
    const crmRule = await seed.rule({ name: 'CRM in', systemId: crm.id, typeId: crm.typeId, direction: 'Import', mvTypeId: user });
    await seed.inbound(crmRule, mv.email, { cs: crm.attributes.mail }, { priority: 1 });
    await seed.matching(crmRule, [crm.attributes.id], mv.employeeId);
    await seed.objects(crm.id, crm.typeId, [
      { externalId: 'E7', values: { [crm.attributes.id]: ['E7'], [crm.attributes.mail]: ['ada@crm.example'] } },
    ]);
    const crmSync = await run(crm.id, crm.profiles.FullSynchronisation, 'FullSynchronisation');
    expect(crmSync).toMatchObject({ status: 'Complete', total_joined: 1, total_projected: 0 });
    expect((await one(`SELECT attributes FROM metaverse_object WHERE id = $1`, [ada.id])).attributes[mv.email]).toEqual([
      { v: 'ada@crm.example', s: crm.id, r: crmRule },
    ]);
    await pg.query(`UPDATE connected_system_object SET status = 'Obsolete', sync_pending = true WHERE connected_system_id = $1`, [crm.id]);
    const crmLeaves = await run(crm.id, crm.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(crmLeaves).toMatchObject({ status: 'Complete', total_disconnected: 1, total_deleted: 0 });
    expect((await one(`SELECT attributes FROM metaverse_object WHERE id = $1`, [ada.id])).attributes[mv.email]).toEqual([
      { v: 'p7@hr.example', s: hr.id, r: hrRule },
    ]);

    // A leaver without grace period: the metaverse object is deleted and its unexported directory account cancelled.
    await seed.objects(hr.id, hr.typeId, [{ ...person(9), status: 'Obsolete' }]);
    const leaver = await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(leaver).toMatchObject({ status: 'Complete', total_deleted: 1, total_disconnected: 1 });
    expect(Number((await one(`SELECT count(*) FROM metaverse_object WHERE type_id = $1`, [user])).count)).toBe(119);
    expect(Number((await one(`SELECT count(*) FROM connected_system_object WHERE connected_system_id = $1`, [dir.id])).count)).toBe(119);

    // With a grace period the leaver becomes a pending deletion, and a rejoin cancels it.
    await pg.query(`UPDATE metaverse_object_type SET deletion_grace_period_seconds = 86400 WHERE id = $1`, [user]);
    await seed.objects(hr.id, hr.typeId, [{ ...person(10), status: 'Obsolete' }]);
    await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    const pending = await one(
      `SELECT m.id, m.last_connector_disconnected_date, m.deletion_eligible_date FROM metaverse_object m
                                WHERE m.attributes -> $1::text -> 0 ->> 'v' = 'E10'`,
      [String(mv.employeeId)],
    );
    expect(pending.last_connector_disconnected_date).not.toBeNull();
    expect(pending.deletion_eligible_date.getTime() - pending.last_connector_disconnected_date.getTime()).toBe(86_400_000);
    await seed.objects(hr.id, hr.typeId, [person(10)]);
    const rejoin = await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    expect(rejoin).toMatchObject({ status: 'Complete', total_joined: 1, total_projected: 0 });
    expect(
      (await one(`SELECT last_connector_disconnected_date FROM metaverse_object WHERE id = $1`, [pending.id]))
        .last_connector_disconnected_date,
    ).toBeNull();

    // Housekeeping deletes a pending deletion once its grace period has passed (and only then).
    await seed.objects(hr.id, hr.typeId, [{ ...person(11), status: 'Obsolete' }]);
    await run(hr.id, hr.profiles.DeltaSynchronisation, 'DeltaSynchronisation');
    const leaving = await one(`SELECT id FROM metaverse_object WHERE attributes -> $1::text -> 0 ->> 'v' = 'E11'`, [String(mv.employeeId)]);
    expect((await worker.get(HousekeepingService).run()).deletedMetaverseObjects).toBe(0);
    await pg.query(`UPDATE metaverse_object SET deletion_eligible_date = now() - interval '1 minute' WHERE id = $1`, [leaving.id]);
    expect((await worker.get(HousekeepingService).run()).deletedMetaverseObjects).toBe(1);
    expect(await one(`SELECT id FROM metaverse_object WHERE id = $1`, [leaving.id])).toBeUndefined();
    const record = await one(
      `SELECT status, total_deleted, initiated_by_type FROM activity WHERE target_type = 'MetaverseObject' AND target_operation_type = 'Delete'`,
    );
    expect(record).toEqual({ status: 'Complete', total_deleted: 1, initiated_by_type: 'System' });
  });

  it('costs the same number of statements per page whatever the page holds', async () => {
    const user = await seed.mvType('User');
    const id = await seed.mvAttribute('Employee ID');
    const counts: number[] = [];
    // Analysing tables that earlier tests made stale is a per-run cost that depends on them: counted apart.
    let analyses = 0;
    const refresh = StatisticsStore.prototype.refresh;
    jest.spyOn(StatisticsStore.prototype, 'refresh').mockImplementation(async function (this: StatisticsStore, tables) {
      const session = (this as unknown as { s: BulkSession }).s;
      const before = session.statements;
      try {
        return await refresh.call(this, tables);
      } finally {
        analyses += session.statements - before;
      }
    });
    // The third run: the same page without metaverse change records (ChangeTracking.MvoChanges.Enabled false).
    const runs = [
      { size: 5, tracked: true },
      { size: 40, tracked: true },
      { size: 40, tracked: false },
    ];
    for (const [index, { size, tracked }] of runs.entries()) {
      analyses = 0;
      await worker.get(SettingsService).set(SettingKeys.MvoChangeTracking, tracked, SYSTEM_INITIATOR);
      const sys = await seed.system(`Stmt${index}`, 'person', ['key', 'name']);
      const rule = await seed.rule({
        name: `Stmt${index}`,
        systemId: sys.id,
        typeId: sys.typeId,
        direction: 'Import',
        mvTypeId: user,
        project: true,
      });
      await seed.inbound(rule, await seed.mvAttribute('Common Name'), { cs: sys.attributes.name });
      await seed.matching(rule, [sys.attributes.key], id);
      await seed.objects(
        sys.id,
        sys.typeId,
        Array.from({ length: size }, (_, i) => ({
          externalId: `S${index}-${i}`,
          values: { [sys.attributes.key]: [`S${index}-${i}`], [sys.attributes.name]: [`n${i}`] },
        })),
      );
      await pg.query(`UPDATE connected_system_run_profile SET page_size = 1000 WHERE connected_system_id = $1`, [sys.id]);
      const act = await run(sys.id, sys.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(act.total_projected).toBe(size);
      counts.push(act.execution_stats.statements - analyses);
    }
    jest.restoreAllMocks();
    await worker.get(SettingsService).revert(SettingKeys.MvoChangeTracking, SYSTEM_INITIATOR);
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBe(counts[0]);
    // The page's metaverse change records are one COPY, whatever the number of objects.
    expect(counts[2]).toBe(counts[0] - 1);
  });

  it("reads a page's unexported changes by their objects, also when the statistics believe there are none", async () => {
    // An export just deleted every pending export and the statistics were refreshed since: the planner
    // believes the partial index of unexported changes empty, while it still holds an entry for each of
    // them until a vacuum. Reading it whole for every page made a delta synchronisation of 10,000 objects
    // after an export of 1,000,000 take seconds per page.
    const systemId = 900001;
    const stale = Array.from({ length: 3000 }, () => randomUUID());
    await pg.query(
      `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type) SELECT $1, id, 'Create' FROM unnest($2::uuid[]) id`,
      [systemId, stale],
    );
    await pg.query(`DELETE FROM pending_export WHERE connected_system_id = $1`, [systemId]);
    const [waiting, exported, none] = [randomUUID(), randomUUID(), randomUUID()];
    await pg.query(
      `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type, status, attribute_changes)
       VALUES ($1, $2, 'Update', 'Pending', '[{"a": 1, "op": "Replace", "v": ["x"]}]'), ($1, $3, 'Create', 'Exported', '[]')`,
      [systemId, waiting, exported],
    );
    await pg.query(`ANALYZE pending_export`);

    const { result: found, statements } = await withStore((store) => store.pendingExports([waiting, exported, none, stale[0]]));

    expect(found).toEqual([
      {
        id: expect.any(String),
        connectedSystemObjectId: waiting,
        changeType: 'Update',
        attributeChanges: [{ a: 1, op: 'Replace', v: ['x'] }],
        created: expect.any(Date),
      },
    ]);
    expect(statements).toHaveLength(1);
    const nodes = await planOf(statements[0]);
    // Found by the objects' ids on an index, never by a scan of every unexported change.
    expect(nodes.some((n) => String(n['Index Cond'] ?? '').includes('connected_system_object_id'))).toBe(true);
    expect(nodes.filter((n) => n['Index Name'] === 'uq_pending_export_open')).toEqual([]);
    await pg.query(`DELETE FROM pending_export WHERE connected_system_id = $1`, [systemId]);
  });
  it('leaves the flags it cleared marked dead in the index of changed objects, so the next delta does not read their rows', async () => {
    const attributes = ['id', 'name'];
    const swept = await seed.system('Swept', 'person', attributes);
    const left = await seed.system('Left', 'person', attributes);
    const N = 3000;
    for (const s of [swept, left]) {
      await pg.query(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, attributes)
         SELECT $1, $2, 'p' || g, jsonb_build_object($3::text, jsonb_build_array('p' || g)) FROM generate_series(1, $4) g`,
        [s.id, s.typeId, s.attributes.id, N],
      );
    }
    // A run clears every flag of `Swept` (no rule applies to its objects: they are only read), then sweeps.
    const sweep = jest.spyOn(SyncStore.prototype, 'sweepSyncFlags');
    try {
      const a = await run(swept.id, swept.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(a).toMatchObject({ status: 'Complete', objects_processed: N });
      expect(sweep.mock.calls).toEqual([[swept.id]]);
      expect(await sweep.mock.results[0].value).toBe(0);
    } finally {
      sweep.mockRestore();
    }
    // What the sweep does, with no other transaction open that could still see the old rows (an entry is
    // marked only when its row is dead to every transaction; the run's own, concurrent, writes of progress
    // can keep the last pages' rows visible for a moment, and a later scan marks those).
    await pg.query(`UPDATE connected_system_object SET sync_pending = true WHERE connected_system_id IN ($1, $2)`, [swept.id, left.id]);
    await pg.query('BEGIN');
    await pg.query(`UPDATE connected_system_object SET sync_pending = false WHERE connected_system_id IN ($1, $2)`, [swept.id, left.id]);
    const cleared: string = (await pg.query(`SELECT txid_current()::text AS x`)).rows[0].x;
    await pg.query('COMMIT');
    // Statistics that know the flags are cleared: with ones taken while they were set, the planner may count
    // through another index of the system's objects, whose size these two updates made comparable.
    await pg.query('ANALYZE connected_system_object');
    // A row is dead to every transaction only once no transaction begun before its flag was cleared is still
    // open anywhere on the server (other databases' included: other test files run on this server meanwhile).
    const holding = async () =>
      (
        await pg.query(
          `SELECT datname, pid, state, left(query, 80) AS query FROM pg_stat_activity
            WHERE pid <> pg_backend_pid()
              AND (backend_xmin IS NOT NULL AND backend_xmin::text::bigint <= ($1::bigint & 4294967295)
                   OR backend_xid IS NOT NULL AND backend_xid::text::bigint <= ($1::bigint & 4294967295))`,
          [cleared],
        )
      ).rows;
    for (let i = 0; i < 1200 && (await holding()).length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await holding()).toEqual([]);
    const { result } = await withStore((store) => store.sweepSyncFlags(swept.id));
    expect(result).toBe(0);
    /** Rows read through the index to count a system's changed objects (index-only scan: `Heap Fetches`). */
    const rowsRead = async (systemId: number) => {
      await pg.query('BEGIN');
      try {
        await pg.query('SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off');
        const { rows } = await pg.query(
          `EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM connected_system_object WHERE connected_system_id = ${systemId} AND sync_pending`,
        );
        const scan = rows[0]['QUERY PLAN'][0].Plan.Plans[0];
        expect(scan).toMatchObject({ 'Node Type': 'Index Only Scan', 'Index Name': 'ix_cso_sync_pending', 'Actual Rows': 0 });
        return scan['Heap Fetches'] as number;
      } finally {
        await pg.query('COMMIT');
      }
    };
    expect(await rowsRead(swept.id)).toBe(0);
    expect(await rowsRead(left.id)).toBeGreaterThanOrEqual(N);
  });

  it('sends queued writes only when asked, once, in order, as they were when queued', async () => {
    await pg.query(`CREATE TABLE queued_probe (n int, t text, a int[], j jsonb)`);
    const queued = new QueuedWrites();
    const values = [1, 2];
    await queued.count(`INSERT INTO queued_probe (n, t, a) VALUES (0, 'first', $1::int[])`, [values]);
    values.push(3); // parameters are converted when queued
    const rows: CopyValue[][] = Array.from({ length: 100 }, (_, i) => [i + 1, `row\t${i}`, null, { k: i }]);
    expect(await queued.copy('queued_probe', ['n', 't', 'a', 'j'], rows)).toBe(100);
    rows[0][1] = 'changed'; // COPY rows are encoded when queued
    await queued.stage('meridian_queued_probe', 'x int');
    await queued.count(`INSERT INTO meridian_queued_probe VALUES (7)`);
    await queued.count(`INSERT INTO queued_probe (n, t) SELECT 1000, 'staged ' || x FROM meridian_queued_probe`);
    await expect(queued.rows()).rejects.toThrow(/nothing can be read/);
    expect((await one(`SELECT count(*)::int AS n FROM queued_probe`)).n).toBe(0);

    await BulkSession.with(worker.get(DataSource), async (session) => {
      await session.transaction(() => queued.sendOn(session));
      await queued.sendOn(session); // sent already: nothing more
    });
    const written = await all(`SELECT n, t, a, j FROM queued_probe ORDER BY n`);
    expect(written).toHaveLength(102);
    expect(written[0]).toEqual({ n: 0, t: 'first', a: [1, 2], j: null });
    expect(written[1]).toEqual({ n: 1, t: 'row\t0', a: null, j: { k: 0 } });
    expect(written[100]).toEqual({ n: 100, t: 'row\t99', a: null, j: { k: 99 } });
    expect(written[101]).toEqual({ n: 1000, t: 'staged 7', a: null, j: null });
    await pg.query(`DROP TABLE queued_probe`);
  });

  describe('a page decided while the page before it is written', () => {
    /** Ids in keyset order: object n of a test sits on page floor(n / page size). */
    const idOf = (test: number, n: number) => `00000000-0000-7000-8000-${String(test).padStart(6, '0')}${String(n).padStart(6, '0')}`;

    /** A source of people projected and matched on their employee ID, with a manager reference; pages of `pageSize`. */
    async function people(name: string, pageSize: number) {
      const user = await seed.mvType('User');
      const mv = { employeeId: await seed.mvAttribute('Employee ID'), manager: await seed.mvAttribute('Manager') };
      const sys = await seed.system(name, 'person', ['key', 'empId', { name: 'manager', type: 'Reference' }]);
      const rule = await seed.rule({ name, systemId: sys.id, typeId: sys.typeId, direction: 'Import', mvTypeId: user, project: true });
      await seed.inbound(rule, mv.employeeId, { cs: sys.attributes.empId });
      await seed.inbound(rule, mv.manager, { cs: sys.attributes.manager });
      await seed.matching(rule, [sys.attributes.empId], mv.employeeId);
      await pg.query(`UPDATE connected_system_run_profile SET page_size = $2 WHERE connected_system_id = $1`, [sys.id, pageSize]);
      return { sys, mv };
    }

    /**
     * Counts the pages decided, and holds the write of the first page until deciding the second page ended,
     * so that page is decided on reads that cannot see what the first page writes.
     */
    function holdFirstWrite() {
      let decided = 0;
      let secondDecided!: () => void;
      const second = new Promise<void>((resolve) => (secondDecided = resolve));
      const prepare = SyncPage.prototype.prepare;
      let settled = 0;
      jest.spyOn(SyncPage.prototype, 'prepare').mockImplementation(async function (this: SyncPage, page) {
        try {
          await prepare.call(this, page);
          decided++;
        } finally {
          if (++settled === 2) secondDecided();
        }
      });
      const commit = SyncPage.prototype.commit;
      let commits = 0;
      jest.spyOn(SyncPage.prototype, 'commit').mockImplementation(async function (this: SyncPage, page) {
        if (++commits === 1) await second;
        return commit.call(this, page);
      });
      return { decided: () => decided };
    }

    // Each test runs with its own sync rules only (the other tests' rules would flow into and provision the
    // same metaverse objects); the others are enabled again afterwards.
    let enabled: number[] = [];
    beforeEach(async () => {
      enabled = (await pg.query(`UPDATE sync_rule SET enabled = false WHERE enabled RETURNING id`)).rows.map((r) => r.id);
    });
    afterEach(async () => {
      jest.restoreAllMocks();
      await pg.query(`UPDATE sync_rule SET enabled = (id = ANY($1::int[]))`, [enabled]);
    });

    it('decides a page again when the page before projected an object it matches: no duplicate is projected', async () => {
      const { sys, mv } = await people('Ahead1', 2);
      const emp = (k: string) => ({ [sys.attributes.empId]: [k] });
      await seed.objects(sys.id, sys.typeId, [
        { id: idOf(1, 1), externalId: 'a1', values: emp('AH1-1') },
        { id: idOf(1, 2), externalId: 'a2', values: emp('AH1-2') },
        // Page 2: the same employee ID as a2, projected by page 1.
        { id: idOf(1, 3), externalId: 'a3', values: emp('AH1-2') },
        { id: idOf(1, 4), externalId: 'a4', values: emp('AH1-4') },
        { id: idOf(1, 5), externalId: 'a5', values: emp('AH1-5') },
      ]);
      const hold = holdFirstWrite();
      const a = await run(sys.id, sys.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(a).toMatchObject({ status: 'CompleteWithError', objects_processed: 5, total_projected: 4, total_errors: 1 });
      // Three pages, the second decided twice (its first decision read before page 1 was written); the third
      // was decided while the second was written, and kept.
      expect(hold.decided()).toBe(4);
      const owners = await all(
        `SELECT c.external_id FROM metaverse_object m JOIN connected_system_object c ON c.metaverse_object_id = m.id
          WHERE m.attributes -> $1::text -> 0 ->> 'v' = 'AH1-2' ORDER BY 1`,
        [mv.employeeId],
      );
      expect(owners).toEqual([{ external_id: 'a2' }]);
      const item = await one(`SELECT error_type FROM activity_execution_item WHERE activity_id = $1 AND external_id_value = 'a3'`, [a.id]);
      expect(item.error_type).toBe('CouldNotJoinDueToExistingJoin');
    });

    it('decides a page again when it refers to an object the page before joined: the reference flows in the same pass', async () => {
      const { sys, mv } = await people('Ahead2', 2);
      await seed.objects(sys.id, sys.typeId, [
        { id: idOf(2, 1), externalId: 'b1', values: { [sys.attributes.empId]: ['AH2-1'] } },
        { id: idOf(2, 2), externalId: 'b2', values: { [sys.attributes.empId]: ['AH2-2'] } },
        {
          id: idOf(2, 3),
          externalId: 'b3',
          values: { [sys.attributes.empId]: ['AH2-3'], [sys.attributes.manager]: ['b1'] },
          refs: { [sys.attributes.manager]: [idOf(2, 1)] },
        },
      ]);
      const hold = holdFirstWrite();
      const a = await run(sys.id, sys.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(a).toMatchObject({ status: 'Complete', objects_processed: 3, total_projected: 3 });
      expect(hold.decided()).toBe(3);
      // Decided on what page 1 wrote: the manager was joined, so nothing waited for the references pass.
      expect(a.execution_stats.phases.map((p: { name: string }) => p.name)).not.toContain('references');
      const rows = await all(
        `SELECT c.external_id, m.id, m.attributes -> $2::text -> 0 ->> 'v' AS manager
           FROM connected_system_object c JOIN metaverse_object m ON m.id = c.metaverse_object_id
          WHERE c.connected_system_id = $1 ORDER BY 1`,
        [sys.id, mv.manager],
      );
      expect(rows[2]).toMatchObject({ external_id: 'b3', manager: rows[0].id });
    });

    it('stops deciding ahead while most pages have to be decided again, and starts again when that passes', async () => {
      const { sys, mv } = await people('Ahead3', 1);
      // Eight pages of one person each, every one managed by the person of the page before.
      await seed.objects(
        sys.id,
        sys.typeId,
        Array.from({ length: 8 }, (_, i) => ({
          id: idOf(3, i + 1),
          externalId: `c${i + 1}`,
          values: { [sys.attributes.empId]: [`AH3-${i + 1}`], ...(i ? { [sys.attributes.manager]: [`c${i}`] } : {}) },
          refs: i ? { [sys.attributes.manager]: [idOf(3, i)] } : undefined,
        })),
      );
      let decided = 0;
      const prepare = SyncPage.prototype.prepare;
      jest.spyOn(SyncPage.prototype, 'prepare').mockImplementation(async function (this: SyncPage, page) {
        decided++;
        return prepare.call(this, page);
      });
      const a = await run(sys.id, sys.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(a).toMatchObject({ status: 'Complete', objects_processed: 8, total_projected: 8 });
      // Pages 2-4 decided ahead and again (3 of 4 pages); 5 and 6 decided after the write before them; 7
      // ahead and again (4 of 7 pages); 8 after the write: 8 pages, 4 decided twice. Deciding ahead every
      // time would have decided 7 pages twice.
      expect(decided).toBe(12);
      const managers = await all(
        `SELECT c.external_id, m.id, m.attributes -> $2::text -> 0 ->> 'v' AS manager
           FROM connected_system_object c JOIN metaverse_object m ON m.id = c.metaverse_object_id
          WHERE c.connected_system_id = $1 ORDER BY c.id`,
        [sys.id, mv.manager],
      );
      expect(managers.map((r, i) => r.manager === (i ? managers[i - 1].id : undefined) || (i === 0 && r.manager === null))).toEqual(
        Array(8).fill(true),
      );
    });

    it('decides a page again when the page before adopted an unjoined object it would adopt too: it provisions instead', async () => {
      const user = await seed.mvType('User');
      const mv = { employeeId: await seed.mvAttribute('Employee ID'), email: await seed.mvAttribute('Email') };
      const hr = await seed.system('Ahead5', 'person', ['key', 'empId', 'mail']);
      const hrRule = await seed.rule({
        name: 'Ahead5',
        systemId: hr.id,
        typeId: hr.typeId,
        direction: 'Import',
        mvTypeId: user,
        project: true,
      });
      await seed.inbound(hrRule, mv.employeeId, { cs: hr.attributes.empId });
      await seed.inbound(hrRule, mv.email, { cs: hr.attributes.mail });
      await seed.matching(hrRule, [hr.attributes.empId], mv.employeeId);
      await pg.query(`UPDATE connected_system_run_profile SET page_size = 1 WHERE connected_system_id = $1`, [hr.id]);
      // A directory whose existing accounts are adopted by their mail before anything is provisioned.
      const dir = await seed.system('Ahead5Dir', 'user', ['uid', 'mail'], 'Bidirectional');
      const dirIn = await seed.rule({ name: 'Ahead5Dir in', systemId: dir.id, typeId: dir.typeId, direction: 'Import', mvTypeId: user });
      await seed.matching(dirIn, [dir.attributes.mail], mv.email);
      const dirOut = await seed.rule({
        name: 'Ahead5Dir out',
        systemId: dir.id,
        typeId: dir.typeId,
        direction: 'Export',
        mvTypeId: user,
        provision: true,
      });
      await seed.outbound(dirOut, dir.attributes.uid, { mv: mv.employeeId });
      await seed.outbound(dirOut, dir.attributes.mail, { mv: mv.email });
      await seed.objects(dir.id, dir.typeId, [
        { externalId: 'existing', values: { [dir.attributes.uid]: ['existing'], [dir.attributes.mail]: ['ahead5@example.org'] } },
      ]);
      // Two people on two pages with the mail of that one account.
      await seed.objects(hr.id, hr.typeId, [
        { id: idOf(5, 1), externalId: 'e1', values: { [hr.attributes.empId]: ['AH5-1'], [hr.attributes.mail]: ['ahead5@example.org'] } },
        { id: idOf(5, 2), externalId: 'e2', values: { [hr.attributes.empId]: ['AH5-2'], [hr.attributes.mail]: ['ahead5@example.org'] } },
      ]);
      const hold = holdFirstWrite();
      const a = await run(hr.id, hr.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(a).toMatchObject({ status: 'Complete', total_projected: 2, total_provisioned: 1 });
      expect(hold.decided()).toBe(3);
      // The account stays with the first person (adopted by page 1); the second gets a new one.
      const joined = await all(
        `SELECT h.external_id AS person, d.external_id AS account, d.status
           FROM connected_system_object h JOIN connected_system_object d ON d.metaverse_object_id = h.metaverse_object_id AND d.connected_system_id = $2
          WHERE h.connected_system_id = $1 ORDER BY 1`,
        [hr.id, dir.id],
      );
      expect(joined).toEqual([
        { person: 'e1', account: 'existing', status: 'Normal' },
        { person: 'e2', account: null, status: 'PendingProvisioning' },
      ]);
    });

    it('decides a page again when the page before left an object unjoined that it would adopt: it adopts it', async () => {
      const user = await seed.mvType('User');
      const mv = {
        employeeId: await seed.mvAttribute('Employee ID'),
        email: await seed.mvAttribute('Email'),
        department: await seed.mvAttribute('Department'),
      };
      const hr = await seed.system('Ahead6', 'person', ['key', 'empId', 'mail', 'dept']);
      const hrRule = await seed.rule({
        name: 'Ahead6',
        systemId: hr.id,
        typeId: hr.typeId,
        direction: 'Import',
        mvTypeId: user,
        project: true,
      });
      await seed.inbound(hrRule, mv.employeeId, { cs: hr.attributes.empId });
      await seed.inbound(hrRule, mv.email, { cs: hr.attributes.mail });
      await seed.inbound(hrRule, mv.department, { cs: hr.attributes.dept });
      await seed.matching(hrRule, [hr.attributes.empId], mv.employeeId);
      await pg.query(`UPDATE connected_system_run_profile SET page_size = 1 WHERE connected_system_id = $1`, [hr.id]);
      // A directory adopting existing accounts by mail; people of department "gone" leave it (disconnected).
      const dir = await seed.system('Ahead6Dir', 'user', ['uid', 'mail'], 'Bidirectional');
      const dirIn = await seed.rule({ name: 'Ahead6Dir in', systemId: dir.id, typeId: dir.typeId, direction: 'Import', mvTypeId: user });
      await seed.matching(dirIn, [dir.attributes.mail], mv.email);
      const dirOut = await seed.rule({
        name: 'Ahead6Dir out',
        systemId: dir.id,
        typeId: dir.typeId,
        direction: 'Export',
        mvTypeId: user,
        provision: true,
        deprovision: 'Disconnect',
        scoping: [{ type: 'All', criteria: [{ attributeId: mv.department, operator: 'NotEquals', value: 'gone' }], groups: [] }],
      });
      await seed.outbound(dirOut, dir.attributes.uid, { mv: mv.employeeId });
      await seed.outbound(dirOut, dir.attributes.mail, { mv: mv.email });
      await seed.objects(dir.id, dir.typeId, [
        { externalId: 'existing', values: { [dir.attributes.uid]: ['existing'], [dir.attributes.mail]: ['ahead6@example.org'] } },
      ]);
      const person = (n: number, dept: string) => ({
        id: idOf(6, n),
        externalId: `f${n}`,
        values: { [hr.attributes.empId]: [`AH6-${n}`], [hr.attributes.mail]: ['ahead6@example.org'], [hr.attributes.dept]: [dept] },
      });
      await seed.objects(hr.id, hr.typeId, [person(1, 'here')]);
      expect(await run(hr.id, hr.profiles.FullSynchronisation, 'FullSynchronisation')).toMatchObject({
        status: 'Complete',
        total_joined: 1,
      });
      // The first person leaves the directory (page 1); a second person with the same mail arrives (page 2).
      await seed.objects(hr.id, hr.typeId, [person(1, 'gone'), person(2, 'here')]);
      const hold = holdFirstWrite();
      const a = await run(hr.id, hr.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(a).toMatchObject({ status: 'Complete', total_disconnected: 1, total_joined: 1, total_provisioned: 0 });
      expect(hold.decided()).toBe(3);
      const accounts = await all(
        `SELECT h.external_id AS person, d.external_id AS account
           FROM connected_system_object h LEFT JOIN connected_system_object d ON d.metaverse_object_id = h.metaverse_object_id AND d.connected_system_id = $2
          WHERE h.connected_system_id = $1 ORDER BY 1`,
        [hr.id, dir.id],
      );
      expect(accounts).toEqual([
        { person: 'f1', account: null },
        { person: 'f2', account: 'existing' },
      ]);
      // The change the first person's join left unexported now carries the second person's values (one
      // pending export per object: adopting an object merges into its open one).
      const pending = await all(
        `SELECT p.change_type, p.attribute_changes FROM pending_export p JOIN connected_system_object d ON d.id = p.connected_system_object_id
          WHERE d.connected_system_id = $1 AND p.status = 'Pending'`,
        [dir.id],
      );
      expect(pending).toHaveLength(1);
      expect(JSON.stringify(pending[0].attribute_changes)).toContain('AH6-2');
      expect(JSON.stringify(pending[0].attribute_changes)).not.toContain('AH6-1');
    });

    it('decides a page again when deciding it ahead failed, and completes the run', async () => {
      const { sys } = await people('Ahead4', 2);
      await seed.objects(
        sys.id,
        sys.typeId,
        Array.from({ length: 5 }, (_, i) => ({
          id: idOf(4, i + 1),
          externalId: `d${i + 1}`,
          values: { [sys.attributes.empId]: [`AH4-${i + 1}`] },
        })),
      );
      const hold = holdFirstWrite();
      const match = SyncStore.prototype.match;
      let matches = 0;
      jest.spyOn(SyncStore.prototype, 'match').mockImplementation(async function (this: SyncStore, queries) {
        // The second page's first decision (made while page 1 is written) loses its connection's answer.
        if (++matches === 2) throw new Error('connection reset while deciding ahead');
        return match.call(this, queries);
      });
      const a = await run(sys.id, sys.profiles.FullSynchronisation, 'FullSynchronisation');
      expect(a).toMatchObject({ status: 'Complete', objects_processed: 5, total_projected: 5 });
      expect(hold.decided()).toBe(3); // pages 1 and 3 once; page 2's failed decision never finished preparing
      expect(
        Number(
          (
            await one(
              `SELECT count(*) AS n FROM connected_system_object WHERE connected_system_id = $1 AND metaverse_object_id IS NOT NULL`,
              [sys.id],
            )
          ).n,
        ),
      ).toBe(5);
    });
  });

  it('reads expired pending deletions oldest first on their own index, however large the metaverse and old its statistics', async () => {
    // The housekeeping job reads a batch every interval, also while a synchronisation fills the metaverse
    // and its statistics predate the objects: planned on the whole table, that read was a sequential
    // scan of every metaverse object (a million of them) every 30 seconds.
    const user = await seed.mvType('User');
    const normal = await pg.query(
      `INSERT INTO metaverse_object (type_id, origin) SELECT $1, 'Projected' FROM generate_series(1, 20000) RETURNING id`,
      [user],
    );
    const pending = async (origin: string, eligible: string) =>
      (
        await one<{ id: string }>(
          `INSERT INTO metaverse_object (type_id, origin, last_connector_disconnected_date, deletion_eligible_date)
           VALUES ($1, $2, now() - interval '30 days', now() + $3::interval) RETURNING id`,
          [user, origin, eligible],
        )
      ).id;
    const newest = await pending('Projected', '-1 day');
    const oldest = await pending('Projected', '-3 days');
    const middle = await pending('Projected', '-2 days');
    const internal = await pending('Internal', '-4 days');
    const later = await pending('Projected', '5 days');
    try {
      const { result, statements } = await withStore((store) => store.expiredPendingDeletions(500));
      expect(result).toEqual([oldest, middle, newest]);
      expect(result).not.toContain(internal);
      expect(result).not.toContain(later);
      const nodes = await planOf(statements[0]);
      expect(nodes.some((n) => n['Index Name'] === 'ix_metaverse_object_deletion_eligible')).toBe(true);
      expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    } finally {
      await pg.query(`DELETE FROM metaverse_object WHERE id = ANY($1::uuid[])`, [
        [...normal.rows.map((r) => r.id), newest, oldest, middle, internal, later],
      ]);
    }
  });
});
