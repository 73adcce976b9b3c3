#!/usr/bin/env node
// `npm start`: installs what is missing, builds, prepares the database, and runs web + worker + scheduler
// together. Ctrl-C stops all three.
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const path = require('path');
const { ROOT, say, fail, run, prepare, checkServices } = require('./lib/setup');

const LOCAL_ENV = path.join(ROOT, '.meridian', 'local.env');

/** Reads .meridian/local.env, creating it with fresh keys on the first run. */
function localEnvironment() {
  if (!fs.existsSync(LOCAL_ENV)) {
    fs.mkdirSync(path.dirname(LOCAL_ENV), { recursive: true });
    const lines = [
      '# Created by `npm start` for this checkout. Environment variables of the same name take precedence.',
      `MERIDIAN_ENCRYPTION_KEY=${crypto.randomBytes(32).toString('base64')}`,
      `MERIDIAN_BOOTSTRAP_API_KEY=mer_${crypto.randomBytes(32).toString('base64url')}`,
      '',
    ];
    fs.writeFileSync(LOCAL_ENV, lines.join('\n'), { mode: 0o600 });
    say(`Created ${path.relative(ROOT, LOCAL_ENV)} with a new encryption key and administrator API key.`);
  }
  const env = {};
  for (const line of fs.readFileSync(LOCAL_ENV, 'utf8').split('\n')) {
    const m = /^\s*([A-Z0-9_]+)\s*=\s*(.*)\s*$/.exec(line);
    if (m) env[m[1]] = m[2];
  }
  return env;
}

function waitForReady(url, timeoutMs) {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve) => {
    const attempt = () => {
      const req = http.get(url, (res) => {
        res.resume();
        if (res.statusCode === 200) return resolve(true);
        retry();
      });
      req.on('error', retry);
      req.setTimeout(2000, () => req.destroy());
    };
    const retry = () => (Date.now() > until ? resolve(false) : setTimeout(attempt, 500));
    attempt();
  });
}

/**
 * Creates the directories the services expect (connector files, scripts) where the configuration puts
 * them, defaults included. The configuration is read the way the services read it, so a malformed
 * variable stops here with the services' own message.
 */
function createDataDirectories(env) {
  require('reflect-metadata');
  const { loadConfigOrExit } = require(path.join(ROOT, 'libs', 'platform', 'dist'));
  const config = loadConfigOrExit('web', env);
  for (const dir of [config.connectorFilesRoot, config.scriptsRoot]) {
    if (fs.existsSync(dir)) continue;
    fs.mkdirSync(dir, { recursive: true });
    say(`Created ${path.relative(ROOT, dir) || dir}.`);
  }
}

async function main() {
  // The services run from the checkout's root, where relative paths in the configuration resolve.
  process.chdir(ROOT);
  prepare({ build: 'all' });

  const env = { ...localEnvironment(), ...process.env };
  env.DATABASE_URL = env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/meridian';
  env.REDIS_URL = env.REDIS_URL || 'redis://127.0.0.1:6379';
  env.PORT = env.PORT || '8080';
  env.MERIDIAN_LOG_DIR = env.MERIDIAN_LOG_DIR || path.join(ROOT, 'logs');
  createDataDirectories(env);
  await checkServices(env.DATABASE_URL, env.REDIS_URL);
  run(process.execPath, [path.join(__dirname, 'migrate.js')], { env });

  const children = [];
  let stopping = false;
  const stopAll = (code) => {
    if (stopping) return;
    stopping = true;
    say('Stopping…');
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    setTimeout(() => process.exit(code), 3000).unref();
    Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null))).then(() => process.exit(code));
  };
  for (const service of ['web', 'worker', 'scheduler']) {
    const child = spawn(process.execPath, [path.join(ROOT, 'apps', service, 'dist', 'main.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const prefix = `${service.padEnd(9)}| `;
    const pipe = (stream, out) => {
      let buffer = '';
      stream.on('data', (chunk) => {
        buffer += chunk;
        const lines = buffer.split('\n');
        buffer = lines.pop();
        for (const line of lines) out.write(`${prefix}${line}\n`);
      });
    };
    pipe(child.stdout, process.stdout);
    pipe(child.stderr, process.stderr);
    child.on('exit', (code, signal) => {
      if (!stopping) {
        say(`${service} exited (${signal ?? code}); stopping the others.`);
        stopAll(code || 1);
      }
    });
    children.push(child);
  }
  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));

  const base = `http://localhost:${env.PORT}`;
  if (await waitForReady(`${base}/api/v1/health/ready`, 120_000)) {
    say('');
    say(`Meridian is running: ${base}`);
    say(`  API reference:  ${base}/api/reference   (OpenAPI: ${base}/api/openapi.json)`);
    say(`  Health:         ${base}/api/v1/health`);
    say(`  Administrator API key: the MERIDIAN_BOOTSTRAP_API_KEY value in ${path.relative(ROOT, LOCAL_ENV)}`);
    say(`    (or your own MERIDIAN_BOOTSTRAP_API_KEY). Try: curl -H "X-Api-Key: <key>" ${base}/api/v1/userinfo`);
    say('Press Ctrl-C to stop.');
  } else if (!stopping) {
    say(`The web service did not become ready; see the messages above and ${base}/api/v1/health/ready.`);
  }
}

main().catch((e) => fail(e.stack || e.message));
