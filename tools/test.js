#!/usr/bin/env node
// `npm test`: installs what is missing, builds, lints, type-checks and runs every project's tests against
// real PostgreSQL and Redis, then prints one line: "N passed, N failed".
//
// CI narrows a run with these variables (unset, everything runs):
//   MERIDIAN_TEST_CHECKS    the static targets to run first, comma-separated (default "build,lint,typecheck")
//   MERIDIAN_TEST_PROJECTS  the projects whose tests run, comma-separated entries applied in order:
//                           "*" every project with tests, "name" adds one, "!name" removes one,
//                           "name=a|b" runs only that project's spec files whose paths contain a or b
//   MERIDIAN_TEST_REPORTS   where the per-project results go (default "reports"), so that two runs keep theirs apart
const fs = require('fs');
const path = require('path');
const { ROOT, say, run, prepare, checkServices } = require('./lib/setup');
const { reportsDir } = require('./jest-summary-reporter');

/** Every workspace project with a test script: its package name and its report file name. */
function testProjects() {
  const projects = [];
  for (const group of ['apps', 'libs', 'tools']) {
    const dir = path.join(ROOT, group);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name, 'package.json');
      if (!fs.existsSync(file)) continue;
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (pkg.scripts?.test) projects.push({ name: pkg.name, report: `jest-${group}-${name}.json`, pattern: null });
    }
  }
  return projects;
}

/** Applies MERIDIAN_TEST_PROJECTS (see the top of this file) to the project list. */
function selectProjects(all, spec) {
  if (!spec) return all;
  const byName = new Map(all.map((p) => [p.name, p]));
  const selected = new Map();
  for (const entry of spec
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    if (entry === '*') {
      for (const p of all) selected.set(p.name, p);
      continue;
    }
    const remove = entry.startsWith('!');
    const [name, pattern] = (remove ? entry.slice(1) : entry).split(/=(.*)/s);
    if (!byName.has(name)) throw new Error(`MERIDIAN_TEST_PROJECTS names "${name}", which is not a project with tests.`);
    if (pattern && !/^[\w.-]+(\|[\w.-]+)*$/.test(pattern))
      throw new Error(`MERIDIAN_TEST_PROJECTS: "${pattern}" is not a|b|… of file names.`);
    if (remove) selected.delete(name);
    else selected.set(name, { ...byName.get(name), pattern: pattern || null });
  }
  return [...selected.values()];
}

async function main() {
  say(`Node.js ${process.version}`);
  const checks = (process.env.MERIDIAN_TEST_CHECKS ?? 'build,lint,typecheck').split(',').filter(Boolean);
  const projects = selectProjects(testProjects(), process.env.MERIDIAN_TEST_PROJECTS);
  const pnpm = prepare();
  await checkServices(
    process.env.MERIDIAN_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    process.env.MERIDIAN_TEST_REDIS_URL || 'redis://127.0.0.1:6379',
  );
  const reports = reportsDir();
  fs.rmSync(reports, { recursive: true, force: true });
  const nxEnv = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', FORCE_COLOR: '0' };
  const nx = (args, forwarded = []) =>
    run(pnpm, ['exec', 'nx', ...args, '--output-style=stream', ...forwarded], { env: nxEnv, allowFailure: true });

  const staticChecks = checks.length ? nx(['run-many', '-t', ...checks, '--parallel=2']) : 0;
  // When the checks have just built every project, the tests do not build again (with the cache skipped they
  // would). The test target is never cached (nx.json), so the tests always run.
  const noRebuild = checks.includes('build') ? ['--exclude-task-dependencies'] : [];
  const whole = projects.filter((p) => !p.pattern).map((p) => p.name);
  let tests = whole.length ? nx(['run-many', '-t', 'test', `--projects=${whole.join(',')}`, ...noRebuild, '--parallel=2']) : 0;
  for (const p of projects.filter((p) => p.pattern)) {
    const patterns = p.pattern.split('|').map((name) => `--testPathPatterns=${name}`);
    tests |= nx(['run', `${p.name}:test`, ...noRebuild], ['--', ...patterns]);
  }

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  for (const project of projects) {
    const file = path.join(reports, project.report);
    if (!fs.existsSync(file)) {
      say(`${project.name}: no test results (the test run did not complete)`);
      failed++;
      continue;
    }
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (r.node !== process.version) {
      say(`${project.name}: its tests ran on Node.js ${r.node}, not ${process.version}`);
      failed++;
    }
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
    for (const failure of r.failures ?? []) failures.push(`${project.name}: ${failure}`);
  }
  for (const failure of failures) say(`failed: ${failure}`);
  if (staticChecks !== 0) {
    say(`${checks.join(', ')} failed (see above).`);
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
