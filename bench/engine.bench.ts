// The synchronisation engine end to end, on this machine. Run with `npm run bench -- engine`
// (MERIDIAN_BENCH_SIZES=10000,100000 for a shorter run; default 10,000, 100,000 and 1,000,000).
// Per size: a throwaway database, the real worker (Nest context, PostgreSQL, Redis), the deterministic HR
// file of DOMAIN.md §7 as a File (CSV) source and a CSV directory as target, then:
//   full import (new) → full import (unchanged) → full synchronisation (project, 14 mapped attributes,
//   provision to the CSV target) → export of every create → 1 % of people changed: import, then delta
//   synchronisation.
// Prints objects per second and the worker's peak RSS for each run. Asserts the outcome (counts), never timings.
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { INestApplicationContext } from '@nestjs/common';
import { RunProfileExecutor } from '@meridian/application';
import { closeLogger, createServiceLogger, loadConfig } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, HR_CSV_COLUMNS, hrRecord, writeHrCsv } from '@meridian/testing';
import { Client } from 'pg';
import { createWorker } from '../apps/worker/src/bootstrap';

const SIZES = (process.env.MERIDIAN_BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const PAGE_SIZE = 1000;
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const rate = (n: number) => Math.round(n).toLocaleString('en-US');

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

async function writeChangedHrCsv(path: string, rows: number): Promise<void> {
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

async function benchSize(n: number): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'meridian-engine-bench-'));
  const db = await createTestDatabase('bench');
  const env = createTestEnvironment(db.url, { MERIDIAN_CONNECTOR_FILES_ROOT: root });
  const config = loadConfig('worker', env.env);
  const logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: 'Warning', console: false });
  let worker: INestApplicationContext | undefined;
  const pg = new Client({ connectionString: db.url });
  try {
    await mkdir(join(root, 'hr'));
    await mkdir(join(root, 'directory'));
    await writeHrCsv(join(root, 'hr', 'people.csv'), n);
    worker = await createWorker(config, logger);
    await pg.connect();
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
    const run = async (
      label: string,
      system: { id: number; profiles: Record<string, number> },
      runType: string,
      check: (a: Record<string, any>) => string | null,
    ) => {
      if (typeof global.gc === 'function') global.gc();
      let peak = process.memoryUsage().rss;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 100);
      const id = await setup.activity(system.id, system.profiles[runType] ?? system.profiles.FullImport, runType);
      const started = process.hrtime.bigint();
      await executor.execute(id, 'bench');
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const a = await setup.one(`SELECT * FROM activity WHERE id = $1`, [id]);
      const problem =
        a.status === 'Complete' || a.status === 'CompleteWithWarning' ? check(a) : `${a.status}: ${a.error_message ?? a.message}`;
      if (problem) throw new Error(`${label} (${rate(n)}): ${problem}`);
      const objects = Math.max(a.objects_processed, 1);
      console.log(
        `${rate(n).padStart(9)}  ${label.padEnd(34)} ${seconds.toFixed(1).padStart(7)} s ${rate(objects / seconds).padStart(9)} objects/s   peak rss ${mb(peak)}`,
      );
    };
    await run('full import, new', hr, 'FullImport', (a) => (a.total_added === n ? null : `added ${a.total_added}`));
    await run('full import, nothing changed', hr, 'FullImport', (a) =>
      a.total_added === 0 && a.total_updated === 0 ? null : `added ${a.total_added}, updated ${a.total_updated}`,
    );
    await run('full sync: project, flow, provision', hr, 'FullSynchronisation', (a) =>
      a.total_projected === n && a.total_provisioned === n ? null : `projected ${a.total_projected}, provisioned ${a.total_provisioned}`,
    );
    await run('export of the creates', dir, 'Export', (a) => (a.total_exported === n ? null : `exported ${a.total_exported}`));
    await writeChangedHrCsv(join(root, 'hr', 'people.csv'), n);
    await run('import with 1 % changed', hr, 'FullImport', (a) =>
      a.total_updated === Math.floor(n / 100) ? null : `updated ${a.total_updated}`,
    );
    await run('delta sync of the 1 %', hr, 'DeltaSynchronisation', (a) =>
      a.objects_processed === Math.floor(n / 100) && a.total_attribute_flows === Math.floor(n / 100)
        ? null
        : `processed ${a.objects_processed}, flows ${a.total_attribute_flows}`,
    );
  } finally {
    await pg.end().catch(() => undefined);
    await worker?.close();
    await closeLogger(logger);
    await env.cleanup();
    await db.drop();
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}, page size ${PAGE_SIZE}, sizes ${SIZES.map(rate).join(', ')}`);
  for (const n of SIZES) await benchSize(n);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
