// File (CSV) connector export benchmark. Run with `npm run bench -- file-export`
// (MERIDIAN_BENCH_ROWS=200000 for a shorter run). In a temporary directory it runs two export sessions
// with batches of 1000, as the export runner sends them:
//   initial: every row of the deterministic HR file of DOMAIN.md §7 created in an empty file;
//   delta:   on that file, 1% of the rows updated, 0.1% deleted, 0.1% created and 0.1% created again
//            (IDs already in the file, as after a crash).
// It prints the time of open, the writes and commit, changes/s, peak memory, and checks the row counts
// (and that the initial export writes the generator's bytes exactly). Timings depend on the machine.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExportChange, ExportSession, FileConnector, SelectedSchema } from '@meridian/connectors';
import { HR_CSV_COLUMNS, hrEmployeeId, hrRecord, writeHrCsv } from '@meridian/testing';

const ROWS = Number(process.env.MERIDIAN_BENCH_ROWS ?? 1_000_000);
const BATCH = 1000;

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

let nextId = 0;
function createOf(index: number): ExportChange {
  const record = hrRecord(index);
  return {
    id: `pe-${++nextId}`,
    objectType: 'person',
    changeType: 'Create',
    externalId: null,
    attributes: HR_CSV_COLUMNS.map((name) => ({ name, operation: 'Replace' as const, values: record[name] === '' ? [] : [record[name]] })),
  };
}
const updateOf = (index: number): ExportChange => ({
  id: `pe-${++nextId}`,
  objectType: 'person',
  changeType: 'Update',
  externalId: hrEmployeeId(index),
  attributes: [{ name: 'title', operation: 'Replace', values: [`Updated title ${index}`] }],
});
const deleteOf = (index: number): ExportChange => ({
  id: `pe-${++nextId}`,
  objectType: 'person',
  changeType: 'Delete',
  externalId: hrEmployeeId(index),
  attributes: [],
});

/** Peak RSS and heap while `fn` runs, sampled every 20 ms. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number; peakRss: number; peakHeap: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeap = Math.max(peakHeap, heapUsed);
  };
  sample();
  const timer = setInterval(sample, 20);
  const start = process.hrtime.bigint();
  try {
    const value = await fn();
    sample();
    return { value, seconds: Number(process.hrtime.bigint() - start) / 1e9, peakRss, peakHeap };
  } finally {
    clearInterval(timer);
  }
}

/** One session: open, the batches, commit; prints each phase. */
async function run(label: string, root: string, batches: Iterable<ExportChange[]>): Promise<void> {
  const ctx = { settings: { filePath: 'out.csv', mode: 'Export' }, filesRoot: root, schema: SCHEMA };
  const connector = new FileConnector();
  const open = await measured(() => connector.openExport(ctx));
  const session: ExportSession = open.value;
  let changes = 0;
  let failures = 0;
  const writes = await measured(async () => {
    for (const batch of batches) {
      const results = await session.write(batch);
      changes += results.length;
      failures += results.filter((r) => !r.success).length;
    }
  });
  const commit = await measured(() => session.commit());
  if (failures > 0) throw new Error(`${label}: ${failures} change(s) failed`);
  const total = open.seconds + writes.seconds + commit.seconds;
  console.log(
    `${label.padEnd(8)} ${rate(changes)} changes in ${total.toFixed(1)} s (${rate(changes / total)} changes/s): ` +
      `open ${open.seconds.toFixed(1)} s, writes ${writes.seconds.toFixed(1)} s, commit ${commit.seconds.toFixed(1)} s`,
  );
  console.log(
    `${''.padEnd(8)} peak rss ${mb(Math.max(open.peakRss, writes.peakRss, commit.peakRss))}, ` +
      `peak heapUsed ${mb(Math.max(open.peakHeap, writes.peakHeap, commit.peakHeap))}; file ${mb((await stat(join(root, 'out.csv'))).size)}`,
  );
}

function* initialBatches(): Generator<ExportChange[]> {
  for (let start = 1; start <= ROWS; start += BATCH) {
    yield Array.from({ length: Math.min(BATCH, ROWS - start + 1) }, (_, i) => createOf(start + i));
  }
}

/** Spread over the file: every 100th row updated, every 1000th deleted, every 1000th (offset) created again. */
function* deltaBatches(): Generator<ExportChange[]> {
  const changes: ExportChange[] = [];
  for (let i = 1; i <= ROWS; i++) {
    if (i % 100 === 50) changes.push(updateOf(i));
    if (i % 1000 === 7) changes.push(deleteOf(i));
    if (i % 1000 === 500) changes.push(createOf(i));
  }
  for (let i = 1; i <= Math.floor(ROWS / 1000); i++) changes.push(createOf(ROWS + i));
  for (let start = 0; start < changes.length; start += BATCH) yield changes.slice(start, start + BATCH);
}

async function fileDigest(filePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function countRows(filePath: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(filePath)) for (const byte of chunk as Buffer) if (byte === 0x0a) lines++;
  return lines - 1;
}

async function main(): Promise<void> {
  if (!Number.isSafeInteger(ROWS) || ROWS < 1000)
    throw new Error(`MERIDIAN_BENCH_ROWS must be an integer of at least 1000, got ${process.env.MERIDIAN_BENCH_ROWS}`);
  const root = await mkdtemp(join(tmpdir(), 'meridian-export-bench-'));
  try {
    console.log(`Node ${process.version}, ${rate(ROWS)} HR rows, batches of ${BATCH}`);
    await run('initial', root, initialBatches());
    await writeHrCsv(join(root, 'expected.csv'), ROWS);
    const same = (await fileDigest(join(root, 'out.csv'))) === (await fileDigest(join(root, 'expected.csv')));
    console.log(`${''.padEnd(8)} ${same ? "identical to the generator's file" : "DIFFERS from the generator's file"}`);
    if (!same) throw new Error('initial export: the file differs from the generated HR file');
    await rm(join(root, 'expected.csv'));

    await run('delta', root, deltaBatches());
    const expected = ROWS - Math.floor((ROWS - 7) / 1000 + 1) + Math.floor(ROWS / 1000);
    const rows = await countRows(join(root, 'out.csv'));
    if (rows !== expected) throw new Error(`delta export: expected ${expected} rows, found ${rows}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
