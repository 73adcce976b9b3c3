// File (CSV) connector import benchmark. Run with `npm run bench -- csv-import`
// (MERIDIAN_BENCH_ROWS=200000 for a shorter run). Generates the deterministic HR file of DOMAIN.md §7
// in a temporary directory, runs full imports with page size 1000 (values raw, then typed by a selected
// schema), prints rows/s and peak memory, and deletes the file. Asserts nothing: timings depend on the machine.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileConnector, SelectedSchema } from '@meridian/connectors';
import { HR_CSV_COLUMNS, writeHrCsv } from '@meridian/testing';

const ROWS = Number(process.env.MERIDIAN_BENCH_ROWS ?? 1_000_000);
const PAGE_SIZE = 1000;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const rate = (n: number) => Math.round(n).toLocaleString('en-US');

const SCHEMA: SelectedSchema = {
  objectTypes: [
    {
      name: 'person',
      externalIdAttribute: 'employeeId',
      secondaryExternalIdAttribute: null,
      attributes: HR_CSV_COLUMNS.map((name) => ({
        name,
        type: name === 'employeeEndDate' ? ('DateTime' as const) : name === 'manager' ? ('Reference' as const) : ('String' as const),
        plurality: 'Single' as const,
      })),
    },
  ],
};

async function importOnce(label: string, root: string, fileSize: number, schema?: SelectedSchema): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  let peakHeap = baseline.heapUsed;
  let objects = 0;
  let errors = 0;
  let pages = 0;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const session = new FileConnector().import(
    { settings: { filePath: 'hr.csv' }, filesRoot: root, schema },
    { mode: 'Full', pageSize: PAGE_SIZE },
  );
  for await (const page of session.pages()) {
    pages++;
    objects += page.objects.length;
    errors += page.errors.length;
    const { rss, heapUsed } = process.memoryUsage();
    if (rss > peakRss) peakRss = rss;
    if (heapUsed > peakHeap) peakHeap = heapUsed;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  if (objects !== ROWS || errors !== 0)
    throw new Error(`${label}: expected ${ROWS} objects and no errors, got ${objects} objects and ${errors} errors`);
  console.log(
    `${label.padEnd(28)} ${rate(objects)} objects in ${pages} pages, ${seconds.toFixed(1)} s: ${rate(objects / seconds).padStart(9)} rows/s, ${(fileSize / 1024 / 1024 / seconds).toFixed(1)} MB/s`,
  );
  // CPU time is steadier than wall time on a shared machine.
  console.log(`${''.padEnd(28)} CPU ${cpuSeconds.toFixed(1)} s: ${rate(objects / cpuSeconds)} rows per CPU-second`);
  console.log(
    `${''.padEnd(28)} peak rss ${mb(peakRss)} (+${mb(peakRss - baseline.rss)} over the start of this import), peak heapUsed ${mb(peakHeap)} (+${mb(peakHeap - baseline.heapUsed)})`,
  );
}

async function main(): Promise<void> {
  if (!Number.isSafeInteger(ROWS) || ROWS < 1)
    throw new Error(`MERIDIAN_BENCH_ROWS must be a positive integer, got ${process.env.MERIDIAN_BENCH_ROWS}`);
  const root = await mkdtemp(join(tmpdir(), 'meridian-csv-bench-'));
  try {
    console.log(
      `Node ${process.version}, ${rate(ROWS)} HR rows, page size ${PAGE_SIZE}; rss before generating ${mb(process.memoryUsage().rss)}`,
    );
    const start = process.hrtime.bigint();
    await writeHrCsv(join(root, 'hr.csv'), ROWS);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const fileSize = (await stat(join(root, 'hr.csv'))).size;
    console.log(`${'generate'.padEnd(28)} ${mb(fileSize)} in ${seconds.toFixed(1)} s: ${rate(ROWS / seconds).padStart(9)} rows/s`);
    await importOnce('full import, raw values', root, fileSize);
    await importOnce('full import, typed (schema)', root, fileSize, SCHEMA);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
