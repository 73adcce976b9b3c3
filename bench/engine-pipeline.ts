// The engine benchmarks' shared pipeline (not a benchmark itself): a throwaway database, the real worker
// (Nest context, PostgreSQL, Redis), the deterministic HR file of DOMAIN.md §7 as a File (CSV) source with
// projection and 14 mapped attributes, and a CSV directory as provisioning target.
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { INestApplicationContext } from '@nestjs/common';
import { RunProfileExecutor } from '@meridian/application';
import { SettingKeys } from '@meridian/domain';
import { closeLogger, createServiceLogger, loadConfig } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, HR_CSV_COLUMNS, hrRecord, writeHrCsv } from '@meridian/testing';
import { Client } from 'pg';
import { createWorker } from '../apps/worker/src/bootstrap';

/** The run profiles' page size: 1000 (the default a run profile gets), or MERIDIAN_BENCH_PAGE_SIZE (1–10,000). */
export const PAGE_SIZE = pageSize(process.env.MERIDIAN_BENCH_PAGE_SIZE);

function pageSize(setting: string | undefined): number {
  if (!setting) return 1000;
  const n = Number(setting);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new Error(`MERIDIAN_BENCH_PAGE_SIZE must be a whole number from 1 to 10000, got ${setting}`);
  return n;
}
export const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
export const rate = (n: number) => Math.round(n).toLocaleString('en-US');

/** HR column → metaverse attribute, the 14 mapped attributes (manager is imported as a reference, not mapped). */
const MAPPED: Array<[string, string]> = [
  ['employeeId', 'Employee ID'],
  ['firstName', 'First Name'],
  ['lastName', 'Last Name'],
  ['email', 'Email'],
  ['department', 'Department'],
  ['title', 'Job Title'],
  ['company', 'Company'],
  ['pronouns', 'Pronouns'],
  ['samAccountName', 'Account Name'],
  ['displayName', 'Display Name'],
  ['status', 'Status'],
  ['userPrincipalName', 'User Principal Name'],
  ['employeeType', 'Employee Type'],
  ['employeeEndDate', 'Employee End Date'],
];

function typeOf(column: string): string {
  if (column === 'employeeEndDate') return 'DateTime';
  if (column === 'manager') return 'Reference';
  return 'String';
}

export async function writeChangedHrCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  const line = (values: string[]) => values.map((v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(',') + '\n';
  out.write(line([...HR_CSV_COLUMNS]));
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    const r = hrRecord(i);
    if (i % 100 === 0) r.department = `${r.department} (moved)`;
    chunk += line(HR_CSV_COLUMNS.map((c) => r[c]));
    if (i % 1000 === 0 || i === rows) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end();
  await once(out, 'finish');
}

class Setup {
  constructor(private readonly pg: Client) {}

  async one<T = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T> {
    return (await this.pg.query(sql, params)).rows[0];
  }

  async system(name: string, settings: Record<string, unknown>, columns: readonly string[]) {
    const system = await this.one<{ id: number }>(
      `INSERT INTO connected_system (name, connector_type, settings) VALUES ($1, 'File', $2) RETURNING id`,
      [name, settings],
    );
    const type = await this.one<{ id: number }>(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'person', true) RETURNING id`,
      [system.id],
    );
    const attributes: Record<string, number> = {};
    for (const column of columns) {
      attributes[column] = (
        await this.one<{ id: number }>(
          `INSERT INTO connected_system_attribute (object_type_id, name, type, plurality, selected, is_external_id) VALUES ($1, $2, $3, 'Single', true, $4) RETURNING id`,
          [type.id, column, typeOf(column), column === columns[0]],
        )
      ).id;
    }
    const profiles: Record<string, number> = {};
    for (const runType of ['FullImport', 'FullSynchronisation', 'DeltaSynchronisation', 'Export']) {
      profiles[runType] = (
        await this.one<{ id: number }>(
          `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type, page_size) VALUES ($1, $2, $2, $3) RETURNING id`,
          [system.id, runType, PAGE_SIZE],
        )
      ).id;
    }
    return { id: system.id, typeId: type.id, attributes, profiles };
  }

  async mv(name: string): Promise<number> {
    return (await this.one<{ id: number }>(`SELECT id FROM metaverse_attribute WHERE name = $1`, [name])).id;
  }

  async mapping(ruleId: number, target: { mv?: number; cs?: number }, source: { mv?: number; cs?: number }) {
    const m = await this.one<{ id: number }>(
      `INSERT INTO sync_rule_mapping (sync_rule_id, target_metaverse_attribute_id, target_connected_system_attribute_id) VALUES ($1, $2, $3) RETURNING id`,
      [ruleId, target.mv ?? null, target.cs ?? null],
    );
    await this.pg.query(
      `INSERT INTO sync_rule_mapping_source (mapping_id, connected_system_attribute_id, metaverse_attribute_id) VALUES ($1, $2, $3)`,
      [m.id, source.cs ?? null, source.mv ?? null],
    );
  }

  async activity(systemId: number, profileId: number, runType: string): Promise<string> {
    return (
      await this.one<{ id: string }>(
        `INSERT INTO activity (status, target_type, target_operation_type, target_name, connected_system_id, connected_system_run_profile_id, connected_system_run_type, initiated_by_type)
       VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', $3, $1, $2, $3, 'System') RETURNING id`,
        [systemId, profileId, runType],
      )
    ).id;
  }
}

export interface RunFigures {
  seconds: number;
  /** CPU time of the worker process (user + system) during the run. */
  cpuSeconds: number;
  objects: number;
  peakRss: number;
  activity: Record<string, any>;
}

type SystemRef = { id: number; profiles: Record<string, number> };

export interface Pipeline {
  root: string;
  hr: SystemRef;
  dir: SystemRef;
  /** Runs a profile to its end on the in-process worker; throws when it fails or `check` finds a problem. */
  run(label: string, system: SystemRef, runType: string, check: (a: Record<string, any>) => string | null): Promise<RunFigures>;
  /** The first row of a query on the benchmark's database. */
  one<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T>;
  close(): Promise<void>;
}

export interface PipelineOptions {
  /** The service settings ChangeTracking.CsoChanges.Enabled / ChangeTracking.MvoChanges.Enabled (default: the defaults, on). */
  tracking?: { cso: boolean; mvo: boolean };
  /** An HR file of n rows to copy instead of generating one. */
  hrFile?: string;
}

/**
 * MERIDIAN_BENCH_SLOW_MS=<ms>: PostgreSQL logs every statement on the benchmark's database slower than
 * that, with its plan as executed (auto_explain, one of PostgreSQL's contrib modules: row counts and
 * buffers; MERIDIAN_BENCH_PLAN_TIMING=1 adds per-node timings, which cost time themselves).
 */
async function logSlowStatements(url: string): Promise<void> {
  const setting = process.env.MERIDIAN_BENCH_SLOW_MS;
  if (!setting) return;
  const ms = Number(setting);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`MERIDIAN_BENCH_SLOW_MS must be a whole number of milliseconds, got ${setting}`);
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    const database = `"${new URL(url).pathname.slice(1).replace(/"/g, '""')}"`;
    const settings: Array<[string, string]> = [
      ['log_min_duration_statement', String(ms)],
      ['session_preload_libraries', `'auto_explain'`],
      ['auto_explain.log_min_duration', String(ms)],
      ['auto_explain.log_analyze', 'on'],
      ['auto_explain.log_buffers', 'on'],
      ['auto_explain.log_timing', process.env.MERIDIAN_BENCH_PLAN_TIMING ? 'on' : 'off'],
      ['auto_explain.log_nested_statements', 'on'],
    ];
    for (const [name, value] of settings) await admin.query(`ALTER DATABASE ${database} SET ${name} = ${value}`);
  } finally {
    await admin.end();
  }
}

/**
 * MERIDIAN_BENCH_PROFILE=<directory>: each run writes a V8 CPU profile of the worker there
 * (`<size>-<run>.cpuprofile`, for Chrome DevTools or `node tools/cpu-profile.js <file>`).
 */
async function startProfile(): Promise<{ stop(name: string): Promise<void> } | undefined> {
  const dir = process.env.MERIDIAN_BENCH_PROFILE;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

export async function openPipeline(n: number, options: PipelineOptions = {}): Promise<Pipeline> {
  const root = await mkdtemp(join(tmpdir(), 'meridian-engine-bench-'));
  const db = await createTestDatabase('bench');
  const env = createTestEnvironment(db.url, { MERIDIAN_CONNECTOR_FILES_ROOT: root });
  const config = loadConfig('worker', env.env);
  const logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: 'Warning', console: false });
  let worker: INestApplicationContext | undefined;
  const pg = new Client({ connectionString: db.url });
  const close = async () => {
    await pg.end().catch(() => undefined);
    await worker?.close();
    await closeLogger(logger);
    await env.cleanup();
    if (process.env.MERIDIAN_BENCH_KEEP) console.log(`kept database ${db.url} and files ${root}`);
    else {
      await db.drop();
      await rm(root, { recursive: true, force: true });
    }
  };
  try {
    await logSlowStatements(db.url);
    await mkdir(join(root, 'hr'));
    await mkdir(join(root, 'directory'));
    if (options.hrFile) await copyFile(options.hrFile, join(root, 'hr', 'people.csv'));
    else await writeHrCsv(join(root, 'hr', 'people.csv'), n);
    worker = await createWorker(config, logger);
    await pg.connect();
    if (options.tracking) {
      for (const [key, on] of [
        [SettingKeys.CsoChangeTracking, options.tracking.cso],
        [SettingKeys.MvoChangeTracking, options.tracking.mvo],
      ] as const)
        await pg.query(`INSERT INTO service_setting (key, value) VALUES ($1, $2)`, [key, JSON.stringify(on)]);
    }
    const setup = new Setup(pg);
    const user = (await setup.one<{ id: number }>(`SELECT id FROM metaverse_object_type WHERE name = 'User'`)).id;
    const hr = await setup.system('HR', { filePath: 'hr/people.csv', mode: 'Import', objectType: 'person' }, HR_CSV_COLUMNS);
    const dirColumns = MAPPED.map(([c]) => c);
    const dir = await setup.system(
      'Directory',
      { filePath: 'directory/users.csv', mode: 'Bidirectional', objectType: 'person' },
      dirColumns,
    );
    const inbound = (
      await setup.one<{ id: number }>(
        `INSERT INTO sync_rule (name, connected_system_id, direction, connected_system_object_type_id, metaverse_object_type_id, project_to_metaverse)
       VALUES ('HR users', $1, 'Import', $2, $3, true) RETURNING id`,
        [hr.id, hr.typeId, user],
      )
    ).id;
    const outbound = (
      await setup.one<{ id: number }>(
        `INSERT INTO sync_rule (name, connected_system_id, direction, connected_system_object_type_id, metaverse_object_type_id, provision_to_connected_system)
       VALUES ('Directory users', $1, 'Export', $2, $3, true) RETURNING id`,
        [dir.id, dir.typeId, user],
      )
    ).id;
    for (const [column, attribute] of MAPPED) {
      const mv = await setup.mv(attribute);
      await setup.mapping(inbound, { mv }, { cs: hr.attributes[column] });
      await setup.mapping(outbound, { cs: dir.attributes[column] }, { mv });
    }
    const employeeId = await setup.mv('Employee ID');
    await pg.query(
      `INSERT INTO sync_rule_matching_rule (sync_rule_id, "order", connected_system_attribute_ids, metaverse_attribute_id) VALUES ($1, 1, $2, $3)`,
      [inbound, [hr.attributes.employeeId], employeeId],
    );
    const executor = worker.get(RunProfileExecutor);
    const run: Pipeline['run'] = async (label, system, runType, check) => {
      if (typeof global.gc === 'function') global.gc();
      let peak = process.memoryUsage().rss;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 100);
      const id = await setup.activity(system.id, system.profiles[runType] ?? system.profiles.FullImport, runType);
      const profiler = await startProfile();
      const started = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      await executor.execute(id, 'bench');
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = process.cpuUsage(cpu);
      await profiler?.stop(`${rate(n).replace(/,/g, '')}-${label.replace(/[^a-z0-9]+/gi, '-')}`);
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const a = await setup.one(`SELECT * FROM activity WHERE id = $1`, [id]);
      const problem =
        a.status === 'Complete' || a.status === 'CompleteWithWarning' ? check(a) : `${a.status}: ${a.error_message ?? a.message}`;
      if (problem) throw new Error(`${label} (${rate(n)}): ${problem}`);
      return {
        seconds,
        cpuSeconds: (used.user + used.system) / 1e6,
        objects: Math.max(a.objects_processed, 1),
        peakRss: peak,
        activity: a,
      };
    };
    return { root, hr, dir, run, one: (sql, params) => setup.one(sql, params), close };
  } catch (e) {
    await close();
    throw e;
  }
}
