#!/usr/bin/env node
// Container health check (Docker HEALTHCHECK, compose healthchecks, Kubernetes exec probes).
//
//   node docker/healthcheck.js [web|worker|scheduler|migrate]
//
// web:               GET /api/v1/health/live on 127.0.0.1:$PORT (https when TLS_CERT_FILE is set);
//                    healthy on HTTP 200.
// worker, scheduler: these have no HTTP listener. Healthy while their node process exists and is
//                    not a zombie or stopped (/proc/<pid>/stat). Without an in-process heartbeat this
//                    cannot see a wedged event loop; it catches a process that is gone or frozen.
// migrate:           always healthy (a one-shot job).
// No argument:       the process is detected from /proc (node apps/<name>/dist/main.js or
//                    tools/migrate.js), so one image-level HEALTHCHECK serves every entry point.
//
// Exit 0 = healthy, 1 = unhealthy (the only codes Docker defines). Uses only node built-ins
// because the slim runtime image has no curl or wget.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');

const ROLES = ['web', 'worker', 'scheduler', 'migrate'];
const LIVE_PATH = '/api/v1/health/live';
const TIMEOUT_MS = Number(process.env.MERIDIAN_HEALTHCHECK_TIMEOUT_MS || 4000);

function procEntries() {
  try {
    return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
}

function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

function roleOf(args) {
  if (!args || !/(^|\/)node$/.test(args[0] || '')) return null;
  const script = args.slice(1).find((a) => !a.startsWith('-')) || '';
  const app = /(?:^|\/)apps\/(web|worker|scheduler)\/dist\/main\.js$/.exec(script);
  if (app) return app[1];
  if (/(?:^|\/)tools\/migrate\.js$/.test(script)) return 'migrate';
  return null;
}

/** PIDs of node processes running the given role (excluding this health check itself). */
function pidsOf(role) {
  return procEntries().filter((pid) => Number(pid) !== process.pid && roleOf(cmdline(pid)) === role);
}

function detectRole() {
  for (const pid of procEntries()) {
    if (Number(pid) === process.pid) continue;
    const role = roleOf(cmdline(pid));
    if (role) return role;
  }
  return null;
}

function processState(pid) {
  try {
    // /proc/<pid>/stat: "pid (comm) S ..." — comm may contain spaces or parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

function checkProcess(role) {
  const pids = pidsOf(role);
  if (pids.length === 0) return { ok: false, detail: `no running ${role} process` };
  for (const pid of pids) {
    const state = processState(pid);
    // R running, S sleeping, D disk wait, I idle are fine; Z zombie, T/t stopped, X dead are not.
    if (state && !'ZTtXx'.includes(state)) return { ok: true, detail: `${role} pid ${pid} state ${state}` };
  }
  return { ok: false, detail: `${role} process not running (pids ${pids.join(', ')})` };
}

function checkWeb() {
  const port = Number(process.env.PORT || 8080);
  const configuredHost = (process.env.MERIDIAN_HOST || '').trim();
  const host = !configuredHost || configuredHost === '0.0.0.0' || configuredHost === '::' ? '127.0.0.1' : configuredHost;
  const tls = Boolean((process.env.TLS_CERT_FILE || '').trim());
  const client = tls ? https : http;
  return new Promise((resolve) => {
    const req = client.request(
      // The certificate is issued for the public name, not for the loopback address.
      {
        host,
        port,
        path: LIVE_PATH,
        method: 'GET',
        timeout: TIMEOUT_MS,
        rejectUnauthorized: false,
        headers: { accept: 'application/json' },
      },
      (res) => {
        res.resume();
        resolve({ ok: res.statusCode === 200, detail: `${tls ? 'https' : 'http'}://${host}:${port}${LIVE_PATH} -> ${res.statusCode}` });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${TIMEOUT_MS} ms`)));
    req.on('error', (e) => resolve({ ok: false, detail: `${LIVE_PATH}: ${e.message}` }));
    req.end();
  });
}

async function main() {
  const requested = process.argv[2];
  if (requested && !ROLES.includes(requested)) {
    process.stderr.write(`healthcheck: unknown process "${requested}" (expected ${ROLES.join(', ')})\n`);
    return 1;
  }
  const role = requested || detectRole();
  let result;
  if (role === 'web') result = await checkWeb();
  else if (role === 'worker' || role === 'scheduler') result = checkProcess(role);
  else result = { ok: true, detail: role ? `${role}: nothing to check` : 'no Meridian process detected: nothing to check' };
  (result.ok ? process.stdout : process.stderr).write(`healthcheck ${result.ok ? 'ok' : 'FAILED'}: ${result.detail}\n`);
  return result.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`healthcheck FAILED: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  },
);
