#!/usr/bin/env node
// `npm test`: installs what is missing, builds, lints, type-checks and runs every project's tests against
// real PostgreSQL and Redis, then prints one line: "N passed, N failed".
const fs = require('fs');
const path = require('path');
const { ROOT, say, run, prepare, checkServices } = require('./lib/setup');

async function main() {
  const pnpm = prepare();
  await checkServices(
    process.env.MERIDIAN_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    process.env.MERIDIAN_TEST_REDIS_URL || 'redis://127.0.0.1:6379',
  );
  const reports = path.join(ROOT, 'reports');
  fs.rmSync(reports, { recursive: true, force: true });
  const nxEnv = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', FORCE_COLOR: '0' };
  const nx = (args) => run(pnpm, ['exec', 'nx', ...args, '--output-style=stream'], { env: nxEnv, allowFailure: true });

  const staticChecks = nx(['run-many', '-t', 'build', 'lint', 'typecheck', '--parallel=2']);
  const tests = nx(['run-many', '-t', 'test', '--skip-nx-cache', '--parallel=2']);

  const projects = [];
  for (const group of ['apps', 'libs', 'tools']) {
    const dir = path.join(ROOT, group);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      const pkg = path.join(dir, name, 'package.json');
      if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).scripts?.test) projects.push(`${group}-${name}`);
    }
  }
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const project of projects) {
    const file = path.join(reports, `jest-${project}.json`);
    if (!fs.existsSync(file)) {
      say(`${project}: no test results (the test run did not complete)`);
      failed++;
      continue;
    }
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
  }
  if (staticChecks !== 0) {
    say('build, lint or typecheck failed (see above).');
    failed++;
  }
  if (tests !== 0 && failed === 0) failed++;
  if (passed === 0 && failed === 0) failed++;
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e.message}\n`);
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(1);
});
