#!/usr/bin/env node
// Writes the deterministic HR CSV of DOMAIN.md §7 (libs/testing/src/hr-csv.ts); the same row count
// always gives the same bytes.
//   node tools/generate-hr-csv.js <rows> [output.csv]     (no output file: writes to stdout)
//   node tools/generate-hr-csv.js 1000000 data/connector-files/hr.csv
// Loads the TypeScript source through tools/ts-register.js, so no build is needed.
const path = require('path');
require('./ts-register.js');
const { hrCsvChunks, writeHrCsv } = require(path.join(__dirname, '..', 'libs', 'testing', 'src', 'hr-csv.ts'));

function usage(message) {
  if (message) console.error(message);
  console.error('Usage: node tools/generate-hr-csv.js <rows> [output.csv]   (rows: 0 … 10000000; stdout when no file is given)');
  process.exit(2);
}

async function main() {
  const [rowsArg, out, ...extra] = process.argv.slice(2);
  if (!rowsArg || extra.length > 0 || rowsArg === '--help' || rowsArg === '-h') usage();
  const rows = Number(rowsArg.replace(/[_,]/g, ''));
  if (!Number.isSafeInteger(rows) || rows < 0 || rows > 10_000_000) usage(`Invalid row count: ${rowsArg}`);
  if (!out || out === '-') {
    for (const chunk of hrCsvChunks(rows)) {
      if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
    return;
  }
  const bytes = await writeHrCsv(out, rows);
  console.error(`Wrote ${rows.toLocaleString('en-US')} rows (${(bytes / 1024 / 1024).toFixed(1)} MB) to ${out}`);
}

main().catch((err) => {
  console.error(err && err.message ? err.message : err);
  process.exit(1);
});
