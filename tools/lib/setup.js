// Shared steps of the npm scripts (start, test, lint, migrate, bench): make sure pnpm and the dependencies
// are there, build what a command loads, and check that PostgreSQL and Redis answer. Plain Node (no
// dependencies), so it runs on a fresh clone.
const { spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const path = require('path');

const ROOT = path.join(__dirname, '..', '..');
const PNPM_VERSION = '10.34.9';

function say(message) {
  process.stdout.write(`[meridian] ${message}\n`);
}

function fail(message) {
  process.stderr.write(`[meridian] ${message}\n`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...(options.env || {}) }, shell: false });
  if (r.error) fail(`${command} could not run: ${r.error.message}`);
  if (r.status !== 0 && !options.allowFailure) fail(`${command} ${args.join(' ')} failed (exit ${r.status}).`);
  return r.status;
}

// The versions package.json `engines` names and CI runs the tests on.
const SUPPORTED_NODE = 'Node.js 24 or Node.js 20 (20.19 or later)';

function checkNode() {
  const version = process.versions.node;
  const [major, minor] = version.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) fail(`Node.js ${version} is too old: Meridian runs on ${SUPPORTED_NODE}.`);
  if (major === 20) say(`Node.js 20 is past its end of life (April 2026); Node.js 24 is recommended.`);
  else if (major !== 24) say(`Node.js ${version} is not tested; Meridian supports ${SUPPORTED_NODE}. Continuing anyway.`);
}

function which(command) {
  const r = spawnSync(
    process.platform === 'win32' ? 'where' : 'sh',
    process.platform === 'win32' ? [command] : ['-c', `command -v ${command}`],
    { encoding: 'utf8' },
  );
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : null;
}

/** Returns the pnpm command to use, installing pnpm when it is missing. */
function ensurePnpm() {
  const local = path.join(ROOT, '.meridian', 'pnpm', 'node_modules', '.bin', 'pnpm');
  const found = which('pnpm');
  if (found) {
    const version = spawnSync(found, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (version.startsWith('10.')) return found;
    say(`pnpm ${version} found; Meridian needs pnpm 10 — using a project-local copy.`);
  } else if (!fs.existsSync(local)) {
    say(`Installing pnpm ${PNPM_VERSION}…`);
    const global = spawnSync('npm', ['install', '-g', `pnpm@${PNPM_VERSION}`], { stdio: 'inherit' });
    if (global.status === 0 && which('pnpm')) return which('pnpm');
  }
  if (!fs.existsSync(local)) {
    say(`Installing pnpm ${PNPM_VERSION} into .meridian/pnpm…`);
    run('npm', ['install', '--no-save', '--prefix', path.join(ROOT, '.meridian', 'pnpm'), `pnpm@${PNPM_VERSION}`]);
  }
  return local;
}

/** Installs dependencies when node_modules is missing or older than the lockfile. */
function ensureDependencies(pnpm) {
  const marker = path.join(ROOT, 'node_modules', '.modules.yaml');
  const lock = path.join(ROOT, 'pnpm-lock.yaml');
  const stale = !fs.existsSync(marker) || fs.statSync(lock).mtimeMs > fs.statSync(marker).mtimeMs;
  if (stale) {
    say('Installing dependencies (pnpm install --frozen-lockfile)…');
    run(pnpm, ['install', '--frozen-lockfile'], { env: { npm_config_nodedir: process.env.npm_config_nodedir || '/usr' } });
  }
}

const NX_ENV = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };

/** Runs an nx command through pnpm, without the daemon or the cloud. */
function nx(pnpm, args, options = {}) {
  return run(pnpm, ['exec', 'nx', ...args], { ...options, env: { ...NX_ENV, ...(options.env || {}) } });
}

/**
 * What any command needs first on a fresh clone: a supported Node, pnpm and the dependencies, then the
 * projects it loads built (`build`: project names such as '@meridian/persistence', or 'all'; nx builds
 * their dependencies too and skips what is up to date). Returns the pnpm command.
 */
function prepare({ build = [] } = {}) {
  checkNode();
  const pnpm = ensurePnpm();
  ensureDependencies(pnpm);
  if (build === 'all') {
    say('Building…');
    nx(pnpm, ['run-many', '-t', 'build', '--output-style=stream-without-prefixes']);
  } else if (build.length) {
    say(`Building ${build.join(', ')}…`);
    nx(pnpm, ['run-many', '-t', 'build', '-p', ...build, '--output-style=stream-without-prefixes']);
  }
  return pnpm;
}

function canConnect(host, port, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Fails with one clear message when PostgreSQL or Redis cannot be reached. */
async function checkServices(databaseUrl, redisUrl) {
  const db = new URL(databaseUrl);
  const redis = new URL(redisUrl);
  if (!(await canConnect(db.hostname, Number(db.port || 5432)))) {
    fail(
      `PostgreSQL is not reachable at ${db.hostname}:${db.port || 5432} (DATABASE_URL). Start it, e.g. "pg_ctlcluster 15 main start" ` +
        `or "sudo systemctl start postgresql", or "docker compose up -d postgres" — or point DATABASE_URL at a running server.`,
    );
  }
  if (!(await canConnect(redis.hostname, Number(redis.port || 6379)))) {
    fail(
      `Redis is not reachable at ${redis.hostname}:${redis.port || 6379} (REDIS_URL). Start it, e.g. "redis-server --daemonize yes" ` +
        `or "sudo systemctl start redis-server", or "docker compose up -d redis" — or point REDIS_URL at a running server.`,
    );
  }
}

module.exports = { ROOT, say, fail, run, nx, checkNode, ensurePnpm, ensureDependencies, prepare, checkServices, canConnect };
