// Runs every benchmark in bench/ (or the ones named) and prints their figures.
//   npm run bench                     all of them
//   npm run bench -- expressions      bench/expressions.bench.ts only
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { prepare } = require('./lib/setup');

// The benchmarks run the TypeScript sources (tools/ts-register.js), so the dependencies are all they need.
prepare();

const dir = path.join(__dirname, '..', 'bench');
const wanted = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)));
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '-r', path.join(__dirname, 'ts-register.js'), path.join(dir, f)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
