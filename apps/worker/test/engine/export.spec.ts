import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { APPLY_PART_PAGES, RunContext, RunProfileExecutor, SettingsService, SYSTEM_INITIATOR } from '@meridian/application';
import { Connector, ConnectorRegistry, ExportSession } from '@meridian/connectors';
import { ActivityStatus, CsoChangeType, InitiatedByType, SettingKeys } from '@meridian/domain';
import { BulkSession, ExportStore, StatisticsStore, uuidV7 } from '@meridian/persistence';
import { closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment } from '@meridian/testing';
import { Client } from 'pg';
import { createWorker } from '../../src/bootstrap';

interface TestSystem {
  id: number;
  name: string;
  typeId: number;
  profileId: number;
  file: string;
  attr: { employeeId: number; displayName: number; mail: number; manager: number };
}

interface Person {
  id: string;
  name: string;
  mail?: string[];
  /** Employee id of the manager (a person provisioned in the same call or earlier). */
  manager?: string;
}

interface Provisioned {
  mvo: string;
  cso: string;
  pe: string;
}

/** Export runs through the run-profile executor, against a real database and real CSV files. */
describe('export (worker)', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  let worker: INestApplicationContext;
  let pg: Client;
  let filesRoot: string;
  let fileConnector: Connector;
  let userTypeId: number;
  let seq = 0;
  /** Metaverse object ids by employee id, across systems of one test. */
  const mvoByEmployee = new Map<string, string>();

  beforeAll(async () => {
    db = await createTestDatabase('worker-export');
    filesRoot = mkdtempSync(join(tmpdir(), 'meridian-export-'));
    env = createTestEnvironment(db.url, { MERIDIAN_CONNECTOR_FILES_ROOT: filesRoot });
    const config = loadConfig('worker', env.env);
    logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: config.logLevel, console: false });
    worker = await createWorker(config, logger);
    fileConnector = worker.get(ConnectorRegistry).require('File');
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    userTypeId = (await one<{ id: number }>(`SELECT id FROM metaverse_object_type WHERE name = 'User'`)).id;
  });

  afterAll(async () => {
    await pg?.end();
    await worker?.close();
    if (logger) await closeLogger(logger);
    await env?.cleanup();
    await db?.drop();
    if (filesRoot) rmSync(filesRoot, { recursive: true, force: true });
  });

  afterEach(() => {
    jest.restoreAllMocks();
    mvoByEmployee.clear();
  });

  async function one<T = any>(sql: string, params: unknown[] = []): Promise<T> {
    return (await pg.query(sql, params)).rows[0];
  }
  async function all<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await pg.query(sql, params)).rows;
  }

  /** A File system in Export mode: person (employeeId = external ID, displayName, mail multi-valued, manager reference). */
  async function newSystem(pageSize = 100): Promise<TestSystem> {
    seq += 1;
    const dir = `export-${seq}`;
    mkdirSync(join(filesRoot, dir), { recursive: true });
    const name = `Directory ${seq}`;
    const settings = { filePath: `${dir}/people.csv`, mode: 'Export', objectType: 'person' };
    const system = await one(`INSERT INTO connected_system (name, connector_type, settings) VALUES ($1, 'File', $2) RETURNING id`, [
      name,
      settings,
    ]);
    const type = await one(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'person', true) RETURNING id`,
      [system.id],
    );
    const attrs = await all<{ id: number; name: string }>(
      `INSERT INTO connected_system_attribute (object_type_id, name, type, plurality, selected, is_external_id)
       VALUES ($1, 'employeeId', 'String', 'Single', true, true), ($1, 'displayName', 'String', 'Single', true, false),
              ($1, 'mail', 'String', 'Multi', true, false), ($1, 'manager', 'Reference', 'Single', true, false)
       RETURNING id, name`,
      [type.id],
    );
    const id = (n: string) => attrs.find((a) => a.name === n)!.id;
    const profile = await one(
      `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type, page_size) VALUES ($1, 'Export', 'Export', $2) RETURNING id`,
      [system.id, pageSize],
    );
    return {
      id: system.id,
      name,
      typeId: type.id,
      profileId: profile.id,
      file: join(filesRoot, dir, 'people.csv'),
      attr: { employeeId: id('employeeId'), displayName: id('displayName'), mail: id('mail'), manager: id('manager') },
    };
  }

  function createChanges(s: TestSystem, p: Person) {
    const changes: unknown[] = [
      { a: s.attr.employeeId, op: 'Replace', v: [p.id] },
      { a: s.attr.displayName, op: 'Replace', v: [p.name] },
    ];
    if (p.mail) changes.push({ a: s.attr.mail, op: 'Replace', v: p.mail });
    if (p.manager) changes.push({ a: s.attr.manager, op: 'Replace', v: [], mv: [mvoByEmployee.get(p.manager)] });
    return changes;
  }

  /** What a synchronisation leaves for provisioning: joined metaverse objects, PendingProvisioning objects and Create exports. */
  async function provision(s: TestSystem, people: Person[]): Promise<Map<string, Provisioned>> {
    const out = new Map<string, Provisioned>();
    const rows = people.map((p) => {
      // Time-ordered export ids: the run reads exports in id order, as a synchronisation stages them.
      const ids = { mvo: randomUUID(), cso: randomUUID(), pe: uuidV7() };
      mvoByEmployee.set(p.id, ids.mvo);
      out.set(p.id, ids);
      return { ...ids, name: p.name, changes: createChanges(s, p) };
    });
    const input = `jsonb_to_recordset($1::jsonb) AS x(mvo uuid, cso uuid, pe uuid, name text, changes jsonb)`;
    await pg.query(`INSERT INTO metaverse_object (id, type_id, origin, display_name) SELECT mvo, $2, 'Projected', name FROM ${input}`, [
      JSON.stringify(rows),
      userTypeId,
    ]);
    await pg.query(
      `INSERT INTO connected_system_object (id, connected_system_id, object_type_id, display_name, status, metaverse_object_id, join_type, sync_pending)
       SELECT cso, $2, $3, name, 'PendingProvisioning', mvo, 'Provisioned', false FROM ${input}`,
      [JSON.stringify(rows), s.id, s.typeId],
    );
    await pg.query(
      `INSERT INTO pending_export (id, connected_system_id, connected_system_object_id, change_type, attribute_changes)
       SELECT pe, $2, cso, 'Create', changes FROM ${input}`,
      [JSON.stringify(rows), s.id],
    );
    return out;
  }

  async function stageExport(s: TestSystem, csoId: string, changeType: 'Update' | 'Delete', changes: unknown[] = []): Promise<string> {
    return (
      await one(
        `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type, attribute_changes) VALUES ($1, $2, $3, $4) RETURNING id`,
        [s.id, csoId, changeType, JSON.stringify(changes)],
      )
    ).id;
  }

  async function queueExport(s: TestSystem): Promise<string> {
    return (
      await one(
        `INSERT INTO activity (status, target_type, target_operation_type, target_id, target_name, target_context, connected_system_id,
                             connected_system_run_profile_id, connected_system_run_type, initiated_by_type, initiated_by_name, objects_to_process)
       VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', $4, 'Export', $3, $1, $2, 'Export', 'System', 'System', 0) RETURNING id`,
        [s.id, s.profileId, s.name, String(s.profileId)],
      )
    ).id;
  }

  /** Runs an export of the system to its end; answers the finished activity row. */
  async function runExport(s: TestSystem, before?: (activityId: string) => void): Promise<any> {
    const activityId = await queueExport(s);
    before?.(activityId);
    const outcome = await worker.get(RunProfileExecutor).execute(activityId, 'test');
    expect(outcome.state).toBe('done');
    return one(`SELECT * FROM activity WHERE id = $1`, [activityId]);
  }

  /** The CSV file as records by employee id (and the raw row count, to catch duplicates). */
  function readCsv(s: TestSystem): { header: string[]; rows: Array<Record<string, string>>; byId: Map<string, Record<string, string>> } {
    const lines = readFileSync(s.file, 'utf8')
      .split('\n')
      .filter((l) => l.length);
    const header = lines[0].split(',');
    const rows = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i], v])));
    return { header, rows, byId: new Map(rows.map((r) => [r.employeeId, r])) };
  }

  const cso = (id: string) => one(`SELECT * FROM connected_system_object WHERE id = $1`, [id]);
  /** The change records a run wrote for a system, by external ID. */
  const changeRecords = (s: TestSystem, activityId: string) =>
    all(`SELECT * FROM connected_system_object_change WHERE connected_system_id = $1 AND activity_id = $2 ORDER BY external_id, id`, [
      s.id,
      activityId,
    ]);
  const pendingExports = (s: TestSystem) => all(`SELECT * FROM pending_export WHERE connected_system_id = $1 ORDER BY created, id`, [s.id]);
  const items = (activityId: string) =>
    all(`SELECT * FROM activity_execution_item WHERE activity_id = $1 ORDER BY external_id_value`, [activityId]);

  /** Counts the sessions, batches and commits of the File connector while `work` runs. */
  function watchSessions() {
    const seen = { sessions: 0, batches: [] as number[], commits: 0, aborts: 0 };
    const open = fileConnector.openExport.bind(fileConnector);
    jest.spyOn(fileConnector, 'openExport').mockImplementation(async (ctx) => {
      const session = await open(ctx);
      seen.sessions++;
      return {
        write: (batch) => {
          seen.batches.push(batch.length);
          return session.write(batch);
        },
        commit: () => {
          seen.commits++;
          return session.commit();
        },
        abort: () => {
          seen.aborts++;
          return session.abort();
        },
      } satisfies ExportSession;
    });
    return seen;
  }

  it('creates objects: one session, one batch per page, one commit; external IDs recorded, objects Normal, exports removed', async () => {
    const s = await newSystem(2);
    const made = await provision(s, [
      { id: 'E1', name: 'Ada', mail: ['ada@x.org', 'ada@y.org'] },
      { id: 'E2', name: 'Grace' },
      { id: 'E3', name: 'Alan' },
      { id: 'E4', name: 'Edsger' },
      { id: 'E5', name: 'Barbara' },
    ]);
    const seen = watchSessions();

    const a = await runExport(s);

    expect(a).toMatchObject({
      status: ActivityStatus.Complete,
      total_exported: 5,
      total_deprovisioned: 0,
      total_errors: 0,
      objects_processed: 5,
    });
    expect(a.message).toBe(`Export to "${s.name}": 5 exported (5 created, 0 updated, 0 deleted), 0 failed, 0 deferred.`);
    expect(seen).toEqual({ sessions: 1, batches: [2, 2, 1], commits: 1, aborts: 0 });
    const csv = readCsv(s);
    expect(csv.header).toEqual(['employeeId', 'displayName', 'mail', 'manager']);
    expect(csv.rows.map((r) => r.employeeId)).toEqual(['E1', 'E2', 'E3', 'E4', 'E5']);
    expect(csv.byId.get('E1')).toEqual({ employeeId: 'E1', displayName: 'Ada', mail: 'ada@x.org|ada@y.org', manager: '' });
    const ada = await cso(made.get('E1')!.cso);
    expect(ada).toMatchObject({ external_id: 'E1', status: 'Normal', content_hash: null, metaverse_object_id: made.get('E1')!.mvo });
    expect(ada.attributes).toEqual({
      [s.attr.employeeId]: ['E1'],
      [s.attr.displayName]: ['Ada'],
      [s.attr.mail]: ['ada@x.org', 'ada@y.org'],
    });
    expect(await pendingExports(s)).toEqual([]);
    const recorded = await items(a.id);
    expect(recorded).toHaveLength(5);
    expect(recorded[0]).toMatchObject({
      external_id_value: 'E1',
      display_name: 'Ada',
      connected_system_object_type: 'person',
      object_change_type: 'Export',
      outcome_summary: 'Exported:1',
      error_type: null,
      connected_system_object_id: made.get('E1')!.cso,
      metaverse_object_id: made.get('E1')!.mvo,
    });
    expect(a.execution_stats.outcomes).toEqual({ Exported: 5 });

    // Nothing left to do: no session is opened, the file stays as it is.
    const again = await runExport(s);
    expect(again.message).toBe(`Export to "${s.name}": 0 exported (0 created, 0 updated, 0 deleted), 0 failed, 0 deferred.`);
    expect(seen.sessions).toBe(1);
  });

  it('updates objects: the file row changes and the object takes the exported values at once', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E1', name: 'Ada', mail: ['ada@x.org'] },
      { id: 'E2', name: 'Grace' },
    ]);
    await runExport(s);
    const ada = made.get('E1')!.cso;
    await pg.query(`UPDATE connected_system_object SET content_hash = '\\x01' WHERE id = $1`, [ada]);
    await stageExport(s, ada, 'Update', [
      { a: s.attr.displayName, op: 'Replace', v: ['Ada Lovelace'] },
      { a: s.attr.mail, op: 'Add', v: ['ada@y.org'] },
    ]);

    const a = await runExport(s);

    expect(a).toMatchObject({ status: ActivityStatus.Complete, total_exported: 1 });
    expect(a.message).toBe(`Export to "${s.name}": 1 exported (0 created, 1 updated, 0 deleted), 0 failed, 0 deferred.`);
    const csv = readCsv(s);
    expect(csv.byId.get('E1')).toEqual({ employeeId: 'E1', displayName: 'Ada Lovelace', mail: 'ada@x.org|ada@y.org', manager: '' });
    expect(csv.byId.get('E2')).toMatchObject({ displayName: 'Grace' });
    const row = await cso(ada);
    expect(row.attributes).toEqual({
      [s.attr.employeeId]: ['E1'],
      [s.attr.displayName]: ['Ada Lovelace'],
      [s.attr.mail]: ['ada@x.org', 'ada@y.org'],
    });
    expect(row.content_hash).toBeNull();
    expect(await pendingExports(s)).toEqual([]);
    expect(await items(a.id)).toMatchObject([{ external_id_value: 'E1', object_change_type: 'Export', outcome_summary: 'Exported:1' }]);
  });

  it('deletes objects: the row goes, the object leaves the connector space, totalDeprovisioned counts it', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E1', name: 'Ada' },
      { id: 'E2', name: 'Grace' },
    ]);
    await runExport(s);
    await stageExport(s, made.get('E2')!.cso, 'Delete');

    const a = await runExport(s);

    expect(a).toMatchObject({ status: ActivityStatus.Complete, total_exported: 1, total_deprovisioned: 1 });
    expect(a.message).toBe(`Export to "${s.name}": 1 exported (0 created, 0 updated, 1 deleted), 0 failed, 0 deferred.`);
    expect(readCsv(s).rows.map((r) => r.employeeId)).toEqual(['E1']);
    expect(await cso(made.get('E2')!.cso)).toBeUndefined();
    expect(await pendingExports(s)).toEqual([]);
    expect(await items(a.id)).toMatchObject([
      { external_id_value: 'E2', object_change_type: 'Deprovision', outcome_summary: 'Deprovisioned:1' },
    ]);
  });

  it('retries a failing change with a growing delay and marks it Failed after Export.MaxRetries attempts', async () => {
    const settings = worker.get(SettingsService);
    await settings.set(SettingKeys.ExportMaxRetries, 3, SYSTEM_INITIATOR);
    try {
      const s = await newSystem();
      await provision(s, [{ id: 'E1', name: 'Ada' }]);
      await runExport(s);
      const ghost = await one(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name, attributes)
                               VALUES ($1, $2, 'E404', 'Ghost', '{}') RETURNING id`,
        [s.id, s.typeId],
      );
      const pe = await stageExport(s, ghost.id, 'Update', [{ a: s.attr.displayName, op: 'Replace', v: ['Nobody'] }]);
      const state = () =>
        one(
          `SELECT status, error_count, last_error, extract(epoch FROM next_attempt_at - last_updated)::int AS delay FROM pending_export WHERE id = $1`,
          [pe],
        );
      const makeDue = () => pg.query(`UPDATE pending_export SET next_attempt_at = now() - interval '1 second' WHERE id = $1`, [pe]);

      const first = await runExport(s);
      expect(first).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_exported: 0, total_errors: 0 });
      expect(first.message).toBe(`Export to "${s.name}": 0 exported (0 created, 0 updated, 0 deleted), 1 failed, 0 deferred.`);
      expect(first.warning_message).toMatch(
        /1 export\(s\) to .* failed and will be retried later \(first error: No row with employeeId = "E404" to update\.\)/,
      );
      expect(await state()).toEqual({
        status: 'Pending',
        error_count: 1,
        last_error: 'No row with employeeId = "E404" to update.',
        delay: 30,
      });

      // Not due yet: the next run leaves it alone.
      const early = await runExport(s);
      expect(early.message).toMatch(/0 exported .*, 0 failed/);
      expect((await state()).error_count).toBe(1);

      await makeDue();
      await runExport(s);
      expect(await state()).toMatchObject({ status: 'Pending', error_count: 2, delay: 60 });

      await makeDue();
      const last = await runExport(s);
      expect(await state()).toMatchObject({ status: 'Failed', error_count: 3, delay: null });
      expect(last).toMatchObject({ status: ActivityStatus.CompleteWithError, total_errors: 1 });
      expect(await items(last.id)).toMatchObject([
        {
          external_id_value: 'E404',
          display_name: 'Ghost',
          object_change_type: 'Export',
          error_type: 'ConnectorError',
          error_message: 'Update failed 3 time(s); the export is now Failed: No row with employeeId = "E404" to update.',
        },
      ]);
      expect(readCsv(s).rows.map((r) => r.employeeId)).toEqual(['E1']);
    } finally {
      await settings.revert(SettingKeys.ExportMaxRetries, SYSTEM_INITIATOR);
    }
  });

  it('defers a reference to an object not yet in the system, writes everything else, and sends the reference with the next export', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E10', name: 'Boss' },
      { id: 'E11', name: 'Report', manager: 'E10' },
    ]);
    const report = made.get('E11')!;

    const first = await runExport(s);

    expect(first).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_exported: 2 });
    expect(first.message).toBe(`Export to "${s.name}": 2 exported (2 created, 0 updated, 0 deleted), 0 failed, 1 deferred.`);
    expect(first.warning_message).toMatch(
      /1 export\(s\) to .* refer to objects that have no identifier .* stay pending for the next export/,
    );
    expect(readCsv(s).byId.get('E11')).toEqual({ employeeId: 'E11', displayName: 'Report', mail: '', manager: '' });
    expect(await cso(report.cso)).toMatchObject({ external_id: 'E11', status: 'Normal' });
    expect(await pendingExports(s)).toMatchObject([
      {
        id: report.pe,
        change_type: 'Update',
        status: 'Pending',
        error_count: 0,
        attribute_changes: [{ a: s.attr.manager, op: 'Replace', v: [], mv: [made.get('E10')!.mvo] }],
      },
    ]);

    const second = await runExport(s);

    expect(second).toMatchObject({ status: ActivityStatus.Complete, total_exported: 1 });
    expect(second.message).toBe(`Export to "${s.name}": 1 exported (0 created, 1 updated, 0 deleted), 0 failed, 0 deferred.`);
    expect(readCsv(s).byId.get('E11')).toEqual({ employeeId: 'E11', displayName: 'Report', mail: '', manager: 'E10' });
    const row = await cso(report.cso);
    expect(row.attributes[s.attr.manager]).toEqual(['E10']);
    expect(row.resolved_references).toEqual({ [s.attr.manager]: [made.get('E10')!.cso] });
    expect(await pendingExports(s)).toEqual([]);
  });

  it('with a connector that does not confirm its writes, keeps what was written as Exported and the deferred reference as a new pending Update', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E10', name: 'Boss' },
      { id: 'E11', name: 'Report', manager: 'E10' },
    ]);
    const open = fileConnector.openExport.bind(fileConnector);
    jest.spyOn(fileConnector, 'openExport').mockImplementation(async (ctx) => {
      const session = await open(ctx);
      return {
        write: async (batch) => (await session.write(batch)).map((r) => ({ ...r, confirmed: false })),
        commit: () => session.commit(),
        abort: () => session.abort(),
      };
    });

    const a = await runExport(s);

    expect(a.message).toBe(`Export to "${s.name}": 2 exported (2 created, 0 updated, 0 deleted), 0 failed, 1 deferred.`);
    const report = made.get('E11')!;
    const left = await all(
      `SELECT id, change_type, status, attribute_changes FROM pending_export WHERE connected_system_object_id = $1 ORDER BY status`,
      [report.cso],
    );
    expect(left).toEqual([
      {
        id: report.pe,
        change_type: 'Create',
        status: 'Exported',
        attribute_changes: [
          { a: s.attr.employeeId, op: 'Replace', v: ['E11'] },
          { a: s.attr.displayName, op: 'Replace', v: ['Report'] },
        ],
      },
      {
        id: expect.any(String),
        change_type: 'Update',
        status: 'Pending',
        attribute_changes: [{ a: s.attr.manager, op: 'Replace', v: [], mv: [made.get('E10')!.mvo] }],
      },
    ]);
    expect(await one(`SELECT status FROM pending_export WHERE id = $1`, [made.get('E10')!.pe])).toEqual({ status: 'Exported' });
    expect(await cso(report.cso)).toMatchObject({ status: 'Normal', external_id: 'E11' });
  });

  it('fails, not the whole apply, a create whose external ID another object already has', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E1', name: 'Ada' },
      { id: 'E1', name: 'Ada again' },
    ]);
    const [first, second] = await pendingExports(s);

    const a = await runExport(s);

    expect(a).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_exported: 1 });
    expect(a.message).toBe(`Export to "${s.name}": 1 exported (1 created, 0 updated, 0 deleted), 1 failed, 0 deferred.`);
    expect(readCsv(s).rows).toHaveLength(1);
    expect(await cso(first.connected_system_object_id)).toMatchObject({ status: 'Normal', external_id: 'E1' });
    expect(await cso(second.connected_system_object_id)).toMatchObject({ status: 'PendingProvisioning', external_id: null });
    expect(await one(`SELECT status, error_count, last_error FROM pending_export WHERE id = $1`, [second.id])).toEqual({
      status: 'Pending',
      error_count: 1,
      last_error: expect.stringMatching(/external ID "E1" already belongs to another object of type "person"/),
    });
    expect(made.size).toBe(1);
  });

  it('fails the run and leaves everything pending when the export cannot start', async () => {
    const s = await newSystem();
    await provision(s, [{ id: 'E1', name: 'Ada' }]);
    writeFileSync(s.file, 'employeeId,displayName,mail,manager\nE9,"broken\n');

    const a = await runExport(s);

    expect(a.status).toBe(ActivityStatus.FailedWithError);
    expect(a.error_message).toMatch(/Export to .* could not start: .*cannot be rewritten safely/);
    expect((await pendingExports(s)).map((p) => [p.status, p.error_count])).toEqual([['Pending', 0]]);

    await pg.query(`UPDATE connected_system SET settings = settings || '{"mode":"Import"}' WHERE id = $1`, [s.id]);
    const refused = await runExport(s);
    expect(refused.status).toBe(ActivityStatus.FailedWithError);
    expect(refused.error_message).toMatch(/cannot export with its current settings/);
  });

  it('leaves every export pending when the connector fails to commit, and fails the run', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E1', name: 'Ada' },
      { id: 'E2', name: 'Grace' },
    ]);
    const open = fileConnector.openExport.bind(fileConnector);
    jest.spyOn(fileConnector, 'openExport').mockImplementation(async (ctx) => {
      const session = await open(ctx);
      return {
        write: (b) => session.write(b),
        commit: async () => {
          await session.abort();
          throw new Error('disk full');
        },
        abort: () => session.abort(),
      };
    });

    const a = await runExport(s);

    expect(a.status).toBe(ActivityStatus.FailedWithError);
    expect(a.error_message).toMatch(/Export to .* failed; nothing was recorded and every export stays pending: disk full/);
    expect(() => readFileSync(s.file)).toThrow();
    expect((await pendingExports(s)).map((p) => [p.status, p.error_count])).toEqual([
      ['Pending', 0],
      ['Pending', 0],
    ]);
    expect(await cso(made.get('E1')!.cso)).toMatchObject({ status: 'PendingProvisioning', external_id: null });
  });

  it('applies a part that failed once again, alone, and records it', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E1', name: 'Ada' },
      { id: 'E2', name: 'Grace' },
    ]);
    const apply = jest.spyOn(ExportStore.prototype, 'apply').mockRejectedValueOnce(new Error('deadlock detected'));

    const a = await runExport(s);

    expect(apply).toHaveBeenCalledTimes(2);
    expect(a).toMatchObject({ status: ActivityStatus.Complete, total_exported: 2 });
    expect(await cso(made.get('E1')!.cso)).toMatchObject({ status: 'Normal', external_id: 'E1' });
    expect(await pendingExports(s)).toEqual([]);
    expect(await items(a.id)).toHaveLength(2);
  });

  it('re-running after a crash between the commit and the apply creates no duplicates', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E1', name: 'Ada' },
      { id: 'E2', name: 'Grace' },
      { id: 'E3', name: 'Alan' },
    ]);
    jest.spyOn(ExportStore.prototype, 'apply').mockRejectedValue(new Error('connection lost'));

    const crashed = await runExport(s);

    expect(crashed.status).toBe(ActivityStatus.FailedWithError);
    expect(crashed.error_message).toMatch(/was written, but its results could not be recorded \(connection lost\)/);
    expect(readCsv(s).rows).toHaveLength(3);
    expect((await pendingExports(s)).every((p) => p.status === 'Pending' && p.change_type === 'Create')).toBe(true);
    expect(await cso(made.get('E1')!.cso)).toMatchObject({ status: 'PendingProvisioning', external_id: null });
    jest.restoreAllMocks();

    // The file already holds the rows (as after a crash after the commit): exporting again rewrites them in place.
    writeFileSync(s.file, readFileSync(s.file, 'utf8').replace('Grace', 'Grace (stale)'));
    const rerun = await runExport(s);

    expect(rerun).toMatchObject({ status: ActivityStatus.Complete, total_exported: 3 });
    const csv = readCsv(s);
    expect(csv.rows.map((r) => r.employeeId)).toEqual(['E1', 'E2', 'E3']);
    expect(csv.byId.get('E2')!.displayName).toBe('Grace');
    expect(await cso(made.get('E2')!.cso)).toMatchObject({ status: 'Normal', external_id: 'E2' });
    expect(await pendingExports(s)).toEqual([]);
  });

  it('records the results in parts, each in its own transaction: a part that fails leaves it and the later ones pending, the next run completes them', async () => {
    // Page size 2: a part is APPLY_PART_PAGES pages, 40 exports; 90 exports make parts of 40, 40 and 10.
    const s = await newSystem(2);
    const partSize = 2 * APPLY_PART_PAGES;
    const people = Array.from({ length: 90 }, (_, i) => ({ id: `E${i + 1}`, name: `Person ${i + 1}` }));
    // The same external ID in the first and the second part: the second claimant fails, across parts too.
    people[partSize + 5] = { id: 'E1', name: 'Ada again' };
    const made = await provision(s, people);
    const exports = await pendingExports(s);
    const apply = ExportStore.prototype.apply;
    const parts: Array<[string | null, string]> = [];
    const sessions = new Set<BulkSession>();
    // The second part cannot be recorded, however often it is tried.
    jest.spyOn(ExportStore.prototype, 'apply').mockImplementation(async function (this: ExportStore, ...args) {
      parts.push([args[2], args[3]]);
      sessions.add(this.session);
      if (args[3] === exports[2 * partSize - 1].id) throw new Error('connection lost');
      return apply.apply(this, args);
    });

    const crashed = await runExport(s);

    // The first two parts are applied at the same time, each on its own session; the lanes then start no
    // other part, and the second is tried once more, alone: it fails again, so the third is never tried.
    const second: [string, string] = [exports[partSize - 1].id, exports[2 * partSize - 1].id];
    expect(parts.slice(0, 2)).toEqual(expect.arrayContaining([[null, exports[partSize - 1].id], second]));
    expect(parts.slice(2)).toEqual([second]);
    expect(sessions.size).toBe(2);
    expect(crashed.status).toBe(ActivityStatus.FailedWithError);
    expect(crashed.error_message).toBe(
      `Export to "${s.name}" was written, but only the results of ${partSize} of 90 pending export(s) could be recorded (connection lost); ` +
        'the others stay pending and the next export sends the same changes again.',
    );
    // The first part is recorded and counted; nothing of the second and third.
    expect(crashed.total_exported).toBe(partSize);
    expect(Number((await one(`SELECT count(*) AS n FROM activity_execution_item WHERE activity_id = $1`, [crashed.id])).n)).toBe(partSize);
    const left = await pendingExports(s);
    expect(left.map((p) => p.id)).toEqual(exports.slice(partSize).map((p) => p.id));
    expect(left.every((p) => p.status === 'Pending' && p.change_type === 'Create' && p.error_count === 0)).toBe(true);
    expect(await cso(made.get('E2')!.cso)).toMatchObject({ status: 'Normal', external_id: 'E2' });
    expect(await cso(made.get(`E${partSize + 1}`)!.cso)).toMatchObject({ status: 'PendingProvisioning', external_id: null });

    jest.restoreAllMocks();
    const rerun = await runExport(s);

    expect(rerun).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_exported: 90 - partSize - 1 });
    expect(rerun.message).toBe(
      `Export to "${s.name}": ${90 - partSize - 1} exported (${90 - partSize - 1} created, 0 updated, 0 deleted), 1 failed, 0 deferred.`,
    );
    const csv = readCsv(s);
    expect(csv.rows).toHaveLength(89);
    expect(new Set(csv.rows.map((r) => r.employeeId)).size).toBe(89);
    expect(
      Number(
        (await one(`SELECT count(*) AS n FROM connected_system_object WHERE connected_system_id = $1 AND status = 'Normal'`, [s.id])).n,
      ),
    ).toBe(89);
    const [stillPending] = await pendingExports(s);
    expect(stillPending).toMatchObject({ id: exports[partSize + 5].id, status: 'Pending', error_count: 1 });
    expect(stillPending.last_error).toMatch(/external ID "E1" already belongs to another object of type "person"/);
  });

  it('applies two parts at once; a new external ID claimed in both is recorded once, the other claimant fails and stays pending', async () => {
    const s = await newSystem(2);
    const partSize = 2 * APPLY_PART_PAGES;
    const people = Array.from({ length: 90 }, (_, i) => ({ id: `E${i + 1}`, name: `Person ${i + 1}` }));
    people[partSize + 5] = { id: 'E1', name: 'Ada again' };
    await provision(s, people);
    const sessions = new Set<BulkSession>();
    const apply = ExportStore.prototype.apply;
    jest.spyOn(ExportStore.prototype, 'apply').mockImplementation(async function (this: ExportStore, ...args) {
      sessions.add(this.session);
      return apply.apply(this, args);
    });

    const a = await runExport(s);

    expect(sessions.size).toBe(2);
    expect(a).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_exported: 89 });
    expect(a.message).toBe(`Export to "${s.name}": 89 exported (89 created, 0 updated, 0 deleted), 1 failed, 0 deferred.`);
    const e1 = await all(`SELECT id FROM connected_system_object WHERE connected_system_id = $1 AND external_id = 'E1'`, [s.id]);
    expect(e1).toHaveLength(1);
    const [left] = await pendingExports(s);
    expect(await pendingExports(s)).toHaveLength(1);
    expect(left).toMatchObject({ status: 'Pending', change_type: 'Create', error_count: 1 });
    expect(left.last_error).toMatch(/external ID "E1" already belongs to another object of type "person"/);
    // The claimant that failed is the other of the two; its object awaits its Create.
    expect(left.connected_system_object_id).not.toBe(e1[0].id);
    expect(await cso(left.connected_system_object_id)).toMatchObject({ status: 'PendingProvisioning', external_id: null });
    expect(Number((await one(`SELECT count(*) AS n FROM activity_execution_item WHERE activity_id = $1`, [a.id])).n)).toBe(89);
  });

  it("records every part on the run's own session when a second one cannot be had", async () => {
    const s = await newSystem(2);
    await provision(
      s,
      Array.from({ length: 90 }, (_, i) => ({ id: `E${i + 1}`, name: `Person ${i + 1}` })),
    );
    // The second lane's results table cannot be made (as when the pool has no connection to spare).
    const prepare = ExportStore.prototype.prepare;
    let prepared = 0;
    jest.spyOn(ExportStore.prototype, 'prepare').mockImplementation(async function (this: ExportStore) {
      if (++prepared === 2) throw new Error('timeout exceeded when trying to connect');
      return prepare.call(this);
    });
    const sessions = new Set<BulkSession>();
    const apply = ExportStore.prototype.apply;
    const applied = jest.spyOn(ExportStore.prototype, 'apply').mockImplementation(async function (this: ExportStore, ...args) {
      sessions.add(this.session);
      return apply.apply(this, args);
    });

    const a = await runExport(s);

    expect(prepared).toBe(2);
    expect(applied).toHaveBeenCalledTimes(3);
    expect(sessions.size).toBe(1);
    expect(a).toMatchObject({ status: ActivityStatus.Complete, total_exported: 90 });
    expect(await pendingExports(s)).toEqual([]);
    expect(readCsv(s).rows).toHaveLength(90);
    expect(Number((await one(`SELECT count(*) AS n FROM activity_execution_item WHERE activity_id = $1`, [a.id])).n)).toBe(90);
  });

  it('keeps an export that a synchronisation changed while it was written pending with its new content', async () => {
    const s = await newSystem();
    const made = await provision(s, [
      { id: 'E1', name: 'Ada' },
      { id: 'E2', name: 'Grace' },
    ]);
    const ada = made.get('E1')!;
    const open = fileConnector.openExport.bind(fileConnector);
    jest.spyOn(fileConnector, 'openExport').mockImplementation(async (ctx) => {
      const session = await open(ctx);
      return {
        write: async (batch) => {
          const results = await session.write(batch);
          // A synchronisation of another system merges a new value into Ada's pending export meanwhile.
          await pg.query(
            `UPDATE pending_export SET attribute_changes = attribute_changes || $2::jsonb, last_updated = now() WHERE id = $1`,
            [ada.pe, JSON.stringify([{ a: s.attr.mail, op: 'Replace', v: ['ada@new.org'] }])],
          );
          return results;
        },
        commit: () => session.commit(),
        abort: () => session.abort(),
      };
    });

    const a = await runExport(s);

    expect(a.message).toMatch(/2 exported \(2 created.*1 changed during the export and stay pending/);
    expect(await cso(ada.cso)).toMatchObject({ status: 'Normal', external_id: 'E1' });
    // What was written is recorded all the same (not the value merged meanwhile).
    expect((await changeRecords(s, a.id)).find((r) => r.external_id === 'E1')).toMatchObject({
      change_type: CsoChangeType.Added,
      attribute_changes: [
        { a: s.attr.employeeId, o: [], n: ['E1'] },
        { a: s.attr.displayName, o: [], n: ['Ada'] },
      ],
    });
    const left = await pendingExports(s);
    expect(left).toMatchObject([{ id: ada.pe, status: 'Pending', change_type: 'Update' }]);
    expect(left[0].attribute_changes).toContainEqual({ a: s.attr.mail, op: 'Replace', v: ['ada@new.org'] });

    jest.restoreAllMocks();
    await runExport(s);
    expect(readCsv(s).byId.get('E1')!.mail).toBe('ada@new.org');
    expect(await pendingExports(s)).toEqual([]);
  });

  it('on cancellation commits and records what was written, leaves the rest pending and ends Cancelled', async () => {
    const s = await newSystem(2);
    await provision(
      s,
      ['E1', 'E2', 'E3', 'E4', 'E5', 'E6'].map((id) => ({ id, name: `Person ${id}` })),
    );
    const seen = watchSessions();
    let activityId = '';
    const stage = ExportStore.prototype.stage;
    // The administrator cancels while the first page is being written.
    jest.spyOn(ExportStore.prototype, 'stage').mockImplementation(async function (this: ExportStore, results) {
      await pg.query(`UPDATE activity SET cancel_requested = true WHERE id = $1`, [activityId]);
      return stage.call(this, results);
    });

    const a = await runExport(s, (id) => (activityId = id));

    expect(a).toMatchObject({ status: ActivityStatus.Cancelled, total_exported: 2, objects_processed: 2 });
    expect(seen).toMatchObject({ sessions: 1, batches: [2], commits: 1 });
    expect(readCsv(s).rows.map((r) => r.employeeId)).toEqual(['E1', 'E2']);
    expect((await pendingExports(s)).map((p) => p.status)).toEqual(['Pending', 'Pending', 'Pending', 'Pending']);
    expect(await items(a.id)).toHaveLength(2);
  });

  it('costs a constant number of statements per page, whatever the page size', async () => {
    const measure = async (pageSize: number) => {
      const s = await newSystem(pageSize);
      // Every person refers to a manager the system already holds, so each page resolves references too.
      await provision(s, [{ id: 'B1', name: 'Boss' }]);
      await runExport(s);
      await provision(
        s,
        Array.from({ length: pageSize * 3 }, (_, i) => ({ id: `P${i + 1}`, name: `Person ${i + 1}`, manager: 'B1' })),
      );
      let session: BulkSession | null = null;
      // Analysing tables that the provisioning made stale is a per-run cost that depends on what earlier runs wrote: counted apart.
      let analyses = 0;
      const refresh = StatisticsStore.prototype.refresh;
      jest.spyOn(StatisticsStore.prototype, 'refresh').mockImplementation(async function (this: StatisticsStore, tables) {
        const before = session?.statements ?? 0;
        try {
          return await refresh.call(this, tables);
        } finally {
          analyses += (session?.statements ?? 0) - before;
        }
      });
      const open = BulkSession.open.bind(BulkSession);
      jest.spyOn(BulkSession, 'open').mockImplementation(async (ds) => (session = await open(ds)));
      const perPage: number[] = [];
      let lastEnd = 0;
      const pageDone = RunContext.prototype.pageDone;
      jest.spyOn(RunContext.prototype, 'pageDone').mockImplementation(async function (this: RunContext, n: number, force?: boolean) {
        perPage.push(this.session.statements - lastEnd);
        try {
          return await pageDone.call(this, n, force);
        } finally {
          lastEnd = this.session.statements;
        }
      });
      const a = await runExport(s);
      jest.restoreAllMocks();
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_exported: pageSize * 3 });
      expect(readCsv(s).rows).toHaveLength(pageSize * 3 + 1);
      return { perPage: perPage.slice(1), total: session!.statements - analyses };
    };

    const small = await measure(10);
    const large = await measure(500);

    expect(small.perPage).toHaveLength(2);
    expect(large.perPage).toEqual(small.perPage);
    expect(large.total).toBe(small.total);
    // Read the page, resolve its references, stage its results.
    expect(small.perPage).toEqual([3, 3]);
  });

  describe('change records', () => {
    it('a Create: Added, with the external ID it got and every value written, and the origin of the run', async () => {
      const s = await newSystem();
      const made = await provision(s, [
        { id: 'E1', name: 'Ada', mail: ['ada@x.org', 'ada@y.org'] },
        { id: 'E2', name: 'Grace' },
      ]);
      const a = await runExport(s);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_exported: 2 });
      const origin = {
        activity_id: a.id,
        run_profile_id: s.profileId,
        initiated_by_type: InitiatedByType.System,
        initiated_by_id: null,
        initiated_by_name: 'System',
      };
      expect(await changeRecords(s, a.id)).toEqual([
        {
          id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
          change_time: expect.any(Date),
          connected_system_id: s.id,
          connected_system_object_id: made.get('E1')!.cso,
          object_type_id: s.typeId,
          external_id: 'E1',
          display_name: 'Ada',
          change_type: CsoChangeType.Added,
          attribute_changes: [
            { a: s.attr.employeeId, o: [], n: ['E1'] },
            { a: s.attr.displayName, o: [], n: ['Ada'] },
            { a: s.attr.mail, o: [], n: ['ada@x.org', 'ada@y.org'] },
          ],
          ...origin,
          object_type_name: null,
          connected_system_name: null,
        },
        expect.objectContaining({
          connected_system_object_id: made.get('E2')!.cso,
          external_id: 'E2',
          change_type: CsoChangeType.Added,
          attribute_changes: [
            { a: s.attr.employeeId, o: [], n: ['E2'] },
            { a: s.attr.displayName, o: [], n: ['Grace'] },
          ],
          ...origin,
        }),
      ]);
    });

    it('an Update: Updated, with exactly the attributes whose values it changed', async () => {
      const s = await newSystem();
      const made = await provision(s, [{ id: 'E1', name: 'Ada', mail: ['ada@x.org'] }]);
      await runExport(s);
      const ada = made.get('E1')!.cso;
      // The employee ID is written again with the value the object holds: not a change.
      await stageExport(s, ada, 'Update', [
        { a: s.attr.employeeId, op: 'Replace', v: ['E1'] },
        { a: s.attr.displayName, op: 'Replace', v: ['Ada Lovelace'] },
      ]);
      const a = await runExport(s);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_exported: 1 });
      expect(await changeRecords(s, a.id)).toMatchObject([
        {
          connected_system_object_id: ada,
          object_type_id: s.typeId,
          external_id: 'E1',
          display_name: 'Ada',
          change_type: CsoChangeType.Updated,
          attribute_changes: [{ a: s.attr.displayName, o: ['Ada'], n: ['Ada Lovelace'] }],
          activity_id: a.id,
          run_profile_id: s.profileId,
          object_type_name: null,
          connected_system_name: null,
        },
      ]);
    });

    it('a Delete: Deleted, with the names of the object type and the system; a placeholder never created and a failure: nothing', async () => {
      const s = await newSystem();
      const made = await provision(s, [
        { id: 'E1', name: 'Ada' },
        { id: 'E2', name: 'Grace' },
      ]);
      await runExport(s);
      await stageExport(s, made.get('E2')!.cso, 'Delete');
      // A placeholder whose Create was never exported (no external ID): its Delete succeeds without the connector.
      const placeholder = await one(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, display_name, status, attributes)
         VALUES ($1, $2, 'Never', 'PendingProvisioning', '{}') RETURNING id`,
        [s.id, s.typeId],
      );
      await stageExport(s, placeholder.id, 'Delete');
      // An update of a row the file does not have: a failure.
      const ghost = await one(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name, attributes)
         VALUES ($1, $2, 'E404', 'Ghost', '{}') RETURNING id`,
        [s.id, s.typeId],
      );
      await stageExport(s, ghost.id, 'Update', [{ a: s.attr.displayName, op: 'Replace', v: ['Nobody'] }]);

      const a = await runExport(s);

      expect(a).toMatchObject({ total_exported: 2, total_deprovisioned: 2 });
      expect(a.message).toBe(`Export to "${s.name}": 2 exported (0 created, 0 updated, 2 deleted), 1 failed, 0 deferred.`);
      expect(await cso(placeholder.id)).toBeUndefined();
      expect(await changeRecords(s, a.id)).toMatchObject([
        {
          connected_system_object_id: made.get('E2')!.cso,
          object_type_id: s.typeId,
          external_id: 'E2',
          display_name: 'Grace',
          change_type: CsoChangeType.Deleted,
          attribute_changes: null,
          activity_id: a.id,
          object_type_name: 'person',
          connected_system_name: s.name,
        },
      ]);
    });

    it('with change tracking off: no record, the same outcome', async () => {
      const settings = worker.get(SettingsService);
      await settings.set(SettingKeys.CsoChangeTracking, false, SYSTEM_INITIATOR);
      try {
        const s = await newSystem();
        const made = await provision(s, [{ id: 'E1', name: 'Ada' }]);
        const created = await runExport(s);
        await stageExport(s, made.get('E1')!.cso, 'Update', [{ a: s.attr.displayName, op: 'Replace', v: ['Ada Lovelace'] }]);
        const updated = await runExport(s);
        await stageExport(s, made.get('E1')!.cso, 'Delete');
        const deleted = await runExport(s);
        expect([created, updated, deleted].map((r) => r.message)).toEqual([
          `Export to "${s.name}": 1 exported (1 created, 0 updated, 0 deleted), 0 failed, 0 deferred.`,
          `Export to "${s.name}": 1 exported (0 created, 1 updated, 0 deleted), 0 failed, 0 deferred.`,
          `Export to "${s.name}": 1 exported (0 created, 0 updated, 1 deleted), 0 failed, 0 deferred.`,
        ]);
        expect([created, updated, deleted].map((r) => [r.status, r.total_exported, r.total_deprovisioned])).toEqual([
          [ActivityStatus.Complete, 1, 0],
          [ActivityStatus.Complete, 1, 0],
          [ActivityStatus.Complete, 1, 1],
        ]);
        expect(await all(`SELECT id FROM connected_system_object_change WHERE connected_system_id = $1`, [s.id])).toEqual([]);
      } finally {
        await settings.revert(SettingKeys.CsoChangeTracking, SYSTEM_INITIATOR);
      }
    });
  });
});
