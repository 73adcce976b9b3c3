// What change tracking costs (issue: at most 30 % more with it on): the full import of new people and the
// full synchronisation (projection, 14 mapped attributes, provisioning) of bench/engine-pipeline.ts, once
// with ChangeTracking.CsoChanges.Enabled and ChangeTracking.MvoChanges.Enabled off and once on, side by
// side on the same HR file, each in its own throwaway database. Run with `npm run bench -- history-tracking`
// (MERIDIAN_BENCH_SIZES=10000,100000 for a shorter run; default 10,000, 100,000 and 1,000,000).
// Prints seconds, objects per second, peak RSS and the change records written; asserts the outcome
// (counts), never timings.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHrCsv } from '@meridian/testing';
import { mb, openPipeline, PAGE_SIZE, rate } from './engine-pipeline';

const SIZES = (process.env.MERIDIAN_BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);

interface ModeFigures {
  import: number;
  sync: number;
  peakRss: number;
  csoChanges: number;
  mvoChanges: number;
}

async function runMode(n: number, hrFile: string, on: boolean): Promise<ModeFigures> {
  const p = await openPipeline(n, { hrFile, tracking: { cso: on, mvo: on } });
  try {
    const imported = await p.run('full import, new', p.hr, 'FullImport', (a) => (a.total_added === n ? null : `added ${a.total_added}`));
    const synced = await p.run('full sync', p.hr, 'FullSynchronisation', (a) =>
      a.total_projected === n && a.total_provisioned === n ? null : `projected ${a.total_projected}, provisioned ${a.total_provisioned}`,
    );
    const counts = await p.one<{ cso: string; mvo: string }>(
      `SELECT (SELECT count(*) FROM connected_system_object_change) AS cso, (SELECT count(*) FROM metaverse_object_change) AS mvo`,
    );
    const figures = {
      import: imported.seconds,
      sync: synced.seconds,
      peakRss: Math.max(imported.peakRss, synced.peakRss),
      csoChanges: Number(counts.cso),
      mvoChanges: Number(counts.mvo),
    };
    const expected = on ? { cso: n, mvo: 2 * n } : { cso: 0, mvo: 0 };
    if (figures.csoChanges !== expected.cso || figures.mvoChanges !== expected.mvo)
      throw new Error(`tracking ${on ? 'on' : 'off'} (${rate(n)}): ${figures.csoChanges} CSO and ${figures.mvoChanges} MVO change records`);
    return figures;
  } finally {
    await p.close();
  }
}

async function benchSize(n: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'meridian-tracking-bench-'));
  try {
    const hrFile = join(dir, 'people.csv');
    await writeHrCsv(hrFile, n);
    const off = await runMode(n, hrFile, false);
    const on = await runMode(n, hrFile, true);
    const line = (label: string, a: number, b: number) =>
      console.log(
        `${rate(n).padStart(9)}  ${label.padEnd(18)} off ${a.toFixed(1).padStart(6)} s (${rate(n / a).padStart(7)}/s)   on ${b.toFixed(1).padStart(6)} s (${rate(n / b).padStart(7)}/s)   ${b >= a ? '+' : ''}${Math.round(((b - a) / a) * 100)} %`,
      );
    line('full import, new', off.import, on.import);
    line('full sync', off.sync, on.sync);
    line('import + sync', off.import + off.sync, on.import + on.sync);
    console.log(
      `${rate(n).padStart(9)}  change records: ${rate(on.csoChanges)} connector space, ${rate(on.mvoChanges)} metaverse; peak rss off ${mb(off.peakRss)}, on ${mb(on.peakRss)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
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
