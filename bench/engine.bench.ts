// The synchronisation engine end to end, on this machine. Run with `npm run bench -- engine`
// (MERIDIAN_BENCH_SIZES=10000,100000 for a shorter run; default 10,000, 100,000 and 1,000,000).
// Per size (bench/engine-pipeline.ts): a throwaway database, the real worker (Nest context, PostgreSQL,
// Redis), the deterministic HR file of DOMAIN.md §7 as a File (CSV) source and a CSV directory as target,
// with the service settings' defaults (change tracking on), then:
//   full import (new) → full import (unchanged) → full synchronisation (project, 14 mapped attributes,
//   provision to the CSV target) → export of every create → 1 % of people changed: import, then delta
//   synchronisation.
// Prints objects per second and the worker's peak RSS for each run (MERIDIAN_BENCH_PHASES=1: also the
// time per phase from each activity's execution statistics). Asserts the outcome (counts), never timings.
// MERIDIAN_BENCH_RUNS=<n> stops after the first n runs (2: the two full imports only);
// MERIDIAN_BENCH_PAGE_SIZE=<n> gives the run profiles another page size than 1000.
// Finding where the time goes: MERIDIAN_BENCH_PROFILE=<directory> writes a CPU profile of the worker per
// run (`node tools/cpu-profile.js <file>` summarises one); MERIDIAN_BENCH_SLOW_MS=<ms> makes PostgreSQL log
// every statement of the benchmark's database slower than that, with its plan, row counts and buffers
// (auto_explain; MERIDIAN_BENCH_PLAN_TIMING=1 adds per-node timings, at a cost), in the server's log.
import { join } from 'node:path';
import { mb, openPipeline, PAGE_SIZE, rate, writeChangedHrCsv } from './engine-pipeline';

const SIZES = (process.env.MERIDIAN_BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const RUNS = Number(process.env.MERIDIAN_BENCH_RUNS ?? 6);
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error(`MERIDIAN_BENCH_RUNS must be a positive whole number, got ${process.env.MERIDIAN_BENCH_RUNS}`);

/** Thrown to stop a size's runs after MERIDIAN_BENCH_RUNS of them. */
class Enough extends Error {}

async function benchSize(n: number): Promise<void> {
  const p = await openPipeline(n);
  try {
    const { hr, dir } = p;
    let runs = 0;
    const run = async (label: string, system: typeof hr, runType: string, check: (a: Record<string, any>) => string | null) => {
      if (runs++ === RUNS) throw new Enough();
      const f = await p.run(label, system, runType, check);
      console.log(
        `${rate(n).padStart(9)}  ${label.padEnd(34)} ${f.seconds.toFixed(1).padStart(7)} s ${rate(f.objects / f.seconds).padStart(9)} objects/s   peak rss ${mb(f.peakRss)}`,
      );
      // MERIDIAN_BENCH_PHASES=1: where the run spent its time (the activity's execution statistics).
      if (process.env.MERIDIAN_BENCH_PHASES) {
        const phases: Array<{ name: string; seconds: number }> = f.activity.execution_stats?.phases ?? [];
        console.log(
          `           worker CPU ${f.cpuSeconds.toFixed(1)} s; ${phases.map((x) => `${x.name} ${x.seconds.toFixed(1)} s`).join(', ')}`,
        );
      }
    };
    await run('full import, new', hr, 'FullImport', (a) => (a.total_added === n ? null : `added ${a.total_added}`));
    await run('full import, nothing changed', hr, 'FullImport', (a) =>
      a.total_added === 0 && a.total_updated === 0 ? null : `added ${a.total_added}, updated ${a.total_updated}`,
    );
    await run('full sync: project, flow, provision', hr, 'FullSynchronisation', (a) =>
      a.total_projected === n && a.total_provisioned === n ? null : `projected ${a.total_projected}, provisioned ${a.total_provisioned}`,
    );
    await run('export of the creates', dir, 'Export', (a) => (a.total_exported === n ? null : `exported ${a.total_exported}`));
    await writeChangedHrCsv(join(p.root, 'hr', 'people.csv'), n);
    await run('import with 1 % changed', hr, 'FullImport', (a) =>
      a.total_updated === Math.floor(n / 100) ? null : `updated ${a.total_updated}`,
    );
    await run('delta sync of the 1 %', hr, 'DeltaSynchronisation', (a) =>
      a.objects_processed === Math.floor(n / 100) && a.total_attribute_flows === Math.floor(n / 100)
        ? null
        : `processed ${a.objects_processed}, flows ${a.total_attribute_flows}`,
    );
  } catch (error) {
    if (!(error instanceof Enough)) throw error;
  } finally {
    await p.close();
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
