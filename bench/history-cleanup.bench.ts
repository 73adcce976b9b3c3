// History retention cleanup under load. Run with `npm run bench -- history-cleanup`
// (MERIDIAN_BENCH_HISTORY_RECORDS=100000 for a short run; default 10,000,000).
// A throwaway database; N change records seeded with set-based SQL (half connected system object changes,
// half metaverse object changes, 90 % older than the default 90-day retention period, ids the UUID v7 of
// their change time, attribute changes like a run's), plus old finished activities with execution items.
// Then HistoryCleanupService.cleanup runs in this process (the API's application context) while a probe on another connection, every
// 100 ms, writes a change record and reads one object's history page, as the API and runs would.
// Prints records deleted per second, the total time, the peak RSS of the process and the probe's max and
// p95 latency (no long lock means no long probe). Asserts the outcome (counts), never timings.
import type { INestApplication } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { HistoryCleanupService, SYSTEM_INITIATOR } from '@meridian/application';
import { closeLogger, createServiceLogger, loadConfig } from '@meridian/platform';
import { uuidV7At, uuidV7Sql } from '@meridian/persistence';
import { createTestDatabase, createTestEnvironment } from '@meridian/testing';
import { Client } from 'pg';
import { createWebApp } from '../apps/web/src/bootstrap';

const N = Number(process.env.MERIDIAN_BENCH_HISTORY_RECORDS ?? 10_000_000);
const DAY = 86_400_000;
/** Rows per seeding statement. */
const SEED_CHUNK = 500_000;
/** Objects whose history the records are spread over (per table). */
const OBJECTS = Math.max(100, Math.floor(N / 40));
/** Old finished activities, each with ITEMS execution items. */
const ACTIVITIES = Math.max(10, Math.floor(N / 50_000));
const ITEMS = 1000;
const PROBE_EVERY_MS = 100;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * Inserts `count` records into `table`, times evenly spread from `fromMs` to `toMs`, in time order
 * (as they would have been written), a statement per SEED_CHUNK rows.
 */
async function seedChanges(pg: Client, table: 'cso' | 'mvo', count: number, fromMs: number, toMs: number): Promise<void> {
  const step = count > 1 ? (toMs - fromMs) / (count - 1) : 0;
  for (let start = 0; start < count; start += SEED_CHUNK) {
    const end = Math.min(count, start + SEED_CHUNK) - 1;
    const at = `to_timestamp(floor($3::float8 + g * $4::float8) / 1000.0)`;
    const common = `FROM generate_series($1::bigint, $2::bigint) g`;
    if (table === 'cso') {
      await pg.query(
        `INSERT INTO connected_system_object_change (id, change_time, connected_system_id, connected_system_object_id, object_type_id, external_id,
                                                     display_name, change_type, attribute_changes, initiated_by_type, initiated_by_name)
         SELECT ${uuidV7Sql(at)}, ${at}, 1, md5('cso' || (g % $5))::uuid, 1, 'E' || (g % $5), 'Person ' || (g % $5),
                'Updated',
                jsonb_build_array(
                  jsonb_build_object('a', 5, 'o', jsonb_build_array('Department ' || (g % 40)), 'n', jsonb_build_array('Department ' || ((g + 1) % 40))),
                  jsonb_build_object('a', 9, 'o', jsonb_build_array('Title ' || (g % 25)), 'n', jsonb_build_array('Title ' || ((g + 7) % 25)))),
                'System', 'Schedule HR import'
         ${common}`,
        [start, end, fromMs, step, OBJECTS],
      );
    } else {
      await pg.query(
        `INSERT INTO metaverse_object_change (id, change_time, metaverse_object_id, object_type_id, display_name, change_type, attribute_changes,
                                              connected_system_id, connected_system_object_id, initiated_by_type, initiated_by_name)
         SELECT ${uuidV7Sql(at)}, ${at}, md5('mvo' || (g % $5))::uuid, 1, 'Person ' || (g % $5), 'AttributeFlow',
                jsonb_build_array(
                  jsonb_build_object('a', 12, 'o', jsonb_build_array('Department ' || (g % 40)), 'n', jsonb_build_array('Department ' || ((g + 1) % 40)), 's', 1),
                  jsonb_build_object('a', 14, 'o', jsonb_build_array(), 'n', jsonb_build_array('person' || (g % $5) || '@example.org'), 's', 1)),
                1, md5('cso' || (g % $5))::uuid, 'System', 'Schedule HR import'
         ${common}`,
        [start, end, fromMs, step, OBJECTS],
      );
    }
  }
}

async function main(): Promise<void> {
  const db = await createTestDatabase('bench-history');
  const env = createTestEnvironment(db.url);
  const config = loadConfig('web', env.env);
  const logger = createServiceLogger({ service: 'web', logDir: config.logDir, level: 'Warning', console: false });
  const pg = new Client({ connectionString: db.url });
  const probe = new Client({ connectionString: db.url });
  let app: INestApplication | undefined;
  try {
    await pg.connect();
    await probe.connect();
    const cso = Math.floor(N / 2);
    const mvo = N - cso;
    const oldCso = Math.floor(cso * 0.9);
    const oldMvo = Math.floor(mvo * 0.9);
    const now = Date.now();
    console.log(
      `Node ${process.version}; ${fmt(N)} change records (${fmt(cso)} CSO, ${fmt(mvo)} MVO; ${fmt(oldCso + oldMvo)} older than 90 days), ` +
        `${fmt(ACTIVITIES)} old activities with ${fmt(ITEMS)} items each`,
    );

    const seeding = performance.now();
    // Old records between 180 and 91 days ago, the rest between 89 days and an hour ago: a day's margin on
    // either side of the cutoff, however long the seeding takes.
    await seedChanges(pg, 'cso', oldCso, now - 180 * DAY, now - 91 * DAY);
    await seedChanges(pg, 'cso', cso - oldCso, now - 89 * DAY, now - 3_600_000);
    await seedChanges(pg, 'mvo', oldMvo, now - 180 * DAY, now - 91 * DAY);
    await seedChanges(pg, 'mvo', mvo - oldMvo, now - 89 * DAY, now - 3_600_000);
    await pg.query(
      `WITH a AS (
         INSERT INTO activity (created, executed, completed, status, target_type, target_operation_type, target_name, initiated_by_type, objects_processed)
         SELECT to_timestamp(($2::float8 + g * 60000) / 1000.0), to_timestamp(($2::float8 + g * 60000) / 1000.0), to_timestamp(($2::float8 + g * 60000 + 30000) / 1000.0),
                'Complete', 'ConnectedSystemRunProfile', 'Execute', 'Full import', 'System', $3
           FROM generate_series(1, $1::int) g
         RETURNING id, created)
       INSERT INTO activity_execution_item (activity_id, external_id_value, display_name, connected_system_object_type, object_change_type, outcome_summary, created)
       SELECT a.id, 'E' || i, 'Person ' || i, 'person', 'Update', 'AttributeFlow:2', a.created FROM a, generate_series(1, $3::int) i`,
      [ACTIVITIES, now - 120 * DAY, ITEMS],
    );
    await pg.query(`ANALYZE connected_system_object_change, metaverse_object_change, activity, activity_execution_item`);
    console.log(`seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

    // The API process holds the cleanup and runs no jobs, so nothing else touches the data while it is measured.
    app = await createWebApp(config, logger);
    const service = app.get(HistoryCleanupService);

    // The probe: what the API and a run do meanwhile, on their own connection.
    const latencies: number[] = [];
    const object = (await probe.query(`SELECT md5('cso' || 7)::uuid AS id`)).rows[0].id as string;
    let probing = true;
    const probeLoop = (async () => {
      while (probing) {
        const t0 = performance.now();
        await probe.query(
          `INSERT INTO connected_system_object_change (id, change_time, connected_system_id, connected_system_object_id, change_type, initiated_by_type)
           VALUES ($1, now(), 1, $2, 'Updated', 'System')`,
          [uuidV7At(Date.now()), object],
        );
        await probe.query(
          `SELECT id, change_time, change_type, attribute_changes FROM connected_system_object_change
            WHERE connected_system_id = 1 AND connected_system_object_id = $1 ORDER BY id DESC LIMIT 50`,
          [object],
        );
        const took = performance.now() - t0;
        latencies.push(took);
        await new Promise((r) => setTimeout(r, Math.max(0, PROBE_EVERY_MS - took)));
      }
    })();

    if (typeof global.gc === 'function') global.gc();
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
    const started = performance.now();
    const result = await service.cleanup(SYSTEM_INITIATOR);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    probing = false;
    await probeLoop;

    const count = async (table: string) => Number((await pg.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
    const problems: string[] = [];
    const expect = (what: string, actual: unknown, wanted: unknown) => {
      if (actual !== wanted) problems.push(`${what}: ${String(actual)}, expected ${String(wanted)}`);
    };
    expect('csoChangesDeleted', result.csoChangesDeleted, oldCso);
    expect('mvoChangesDeleted', result.mvoChangesDeleted, oldMvo);
    expect('activitiesDeleted', result.activitiesDeleted, ACTIVITIES);
    expect('CSO changes left', await count('connected_system_object_change'), cso - oldCso + latencies.length);
    expect('MVO changes left', await count('metaverse_object_change'), mvo - oldMvo);
    expect('execution items left', await count('activity_execution_item'), 0);
    if (problems.length) throw new Error(`Wrong outcome: ${problems.join('; ')}`);

    const deleted = result.csoChangesDeleted + result.mvoChangesDeleted + result.activitiesDeleted;
    const sorted = [...latencies].sort((a, b) => a - b);
    const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? 0;
    console.log(
      `cleanup: ${fmt(deleted)} records (+ ${fmt(ACTIVITIES * ITEMS)} execution items) in ${seconds.toFixed(1)} s, ` +
        `${fmt(deleted / seconds)} records/s, batch ${result.batchSize}, peak rss ${mb(peak)}`,
    );
    console.log(
      `probe (write a change record + read an object's history page every ${PROBE_EVERY_MS} ms): ${latencies.length} probes, max ${ms(sorted[sorted.length - 1] ?? 0)}, p95 ${ms(p95)}`,
    );
  } finally {
    await app?.close();
    await probe.end().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await closeLogger(logger);
    await env.cleanup();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
