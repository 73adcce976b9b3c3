#!/usr/bin/env node
// `npm run api-client`: regenerates the typed client (libs/api-client) from the OpenAPI document the web
// app serves. Builds the web app, starts it on a throwaway database, fetches /api/openapi.json, writes
// libs/api-client/openapi.json and src/schema.ts, and builds the client. Running it again with no API
// change rewrites the same bytes.
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { ROOT, say, fail, nx, prepare, checkServices } = require('./lib/setup');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilReady(url, web, timeoutMs = 60_000) {
  for (const until = Date.now() + timeoutMs; ;) {
    if (web.exitCode !== null) throw new Error(`The web app exited (code ${web.exitCode}).`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s.`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts the built web app on its own database and returns the document it serves. */
async function fetchServedDocument() {
  const { createTestDatabase, createTestEnvironment } = require(path.join(ROOT, 'libs', 'testing', 'dist'));
  const db = await createTestDatabase('apiclient');
  const port = await freePort();
  const env = createTestEnvironment(db.url, { PORT: String(port) });
  const web = spawn(process.execPath, [path.join(ROOT, 'apps', 'web', 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  web.stderr.on('data', (d) => (stderr += String(d)));
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitUntilReady(`${base}/api/v1/health/ready`, web).catch((e) => {
      throw new Error(`${e.message}${stderr ? `\n${stderr}` : ''}`);
    });
    const res = await fetch(`${base}/api/openapi.json`);
    if (!res.ok) throw new Error(`GET /api/openapi.json answered ${res.status}.`);
    return await res.json();
  } finally {
    if (web.exitCode === null) {
      const exited = new Promise((r) => web.once('exit', r));
      web.kill('SIGTERM');
      await exited;
    }
    await env.cleanup();
    await db.drop();
  }
}

async function main() {
  const pnpm = prepare({ build: ['@meridian/web', '@meridian/testing'] });
  await checkServices(
    process.env.MERIDIAN_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    process.env.MERIDIAN_TEST_REDIS_URL || 'redis://127.0.0.1:6379',
  );
  say('Fetching the OpenAPI document from the web app…');
  const document = await fetchServedDocument();
  const { writeClientSources } = require(path.join(ROOT, 'libs', 'api-client', 'codegen.js'));
  for (const { file, changed } of await writeClientSources(document))
    say(`${path.relative(ROOT, file)}: ${changed ? 'updated' : 'unchanged'}`);
  say('Building @meridian/api-client…');
  nx(pnpm, ['run', '@meridian/api-client:build', '--output-style=stream-without-prefixes']);
}

main().catch((e) => fail(e.stack || e.message));
