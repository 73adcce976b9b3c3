import { ensureDatabase, runMigrations } from '@meridian/persistence';
import { createTestEnvironment, hrCsvText, PrivatePostgres, PrivateRedis, TestEnvironment, waitFor } from '@meridian/testing';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAnswer } from './api';
import { freePort, ServiceProcess, startService, waitForHttp } from './processes';

/**
 * PostgreSQL and Redis stopped and started under the running web, worker and scheduler processes. The
 * suite runs its own PostgreSQL cluster and Redis server (never the machine's shared ones): every
 * failure is a 503 with Retry-After and the error body naming the dependency, never a 500; requests
 * and jobs flow again within seconds of the dependency's return without restarting anything; each
 * process logs an outage as one warning without a stack.
 */

const CS = '/api/v1/synchronisation/connected-systems';
/** How soon after a dependency answers again requests and jobs must flow (issue #15: "within 3 s"). */
const RECOVERY_MS = 3000;
/** How long Redis stays away. */
const REDIS_OUTAGE_MS = 12_000;
const DATABASE = 'The database (PostgreSQL)';
const QUEUE = 'The job queue (Redis)';

interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
}

describe('dependencies down and back (own PostgreSQL and Redis, real processes)', () => {
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let env: TestEnvironment;
  let files: string;
  let base: string;
  let web: ServiceProcess;
  let worker: ServiceProcess;
  let scheduler: ServiceProcess;
  let systemId: number;
  let profileId: number;
  let writes = 0;
  /** Outages each process may have seen, by dependency (the log assertions count warnings against them). */
  const outages = { database: 0, queue: 0 };

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    redis = await PrivateRedis.start();
    const dbUrl = pg.url.replace(/\/postgres$/, '/meridian_outage');
    await ensureDatabase(dbUrl);
    await runMigrations(dbUrl);
    files = mkdtempSync(join(tmpdir(), 'meridian-outage-'));
    mkdirSync(join(files, 'hr'));
    writeFileSync(join(files, 'hr', 'people.csv'), hrCsvText(5));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = createTestEnvironment(dbUrl, { PORT: String(port), REDIS_URL: redis.url, MERIDIAN_CONNECTOR_FILES_ROOT: files });
    web = startService('web', env.env);
    worker = startService('worker', env.env);
    scheduler = startService('scheduler', env.env);
    await waitForHttp(`${base}/api/v1/health/ready`, 60_000);
    await ok('PUT', '/api/v1/service-settings/Security.RateLimiting.ApiKeyRequestsPerMinute', { value: 1_000_000 });

    // A File system with a full import profile: what "execute" runs.
    const system = await ok('POST', CS, {
      name: 'HR',
      connectorType: 'File',
      settings: { filePath: 'hr/people.csv', mode: 'Import', objectType: 'person' },
    });
    systemId = system.id;
    await ok('POST', `${CS}/${systemId}/schema/import`);
    const [type] = await ok('GET', `${CS}/${systemId}/object-types`);
    await ok('PUT', `${CS}/${systemId}/object-types/${type.id}`, { selected: true });
    const externalId = type.attributes.find((a: { name: string }) => a.name === 'employeeId');
    await ok('PUT', `${CS}/${systemId}/object-types/${type.id}/attributes/${externalId.id}`, { isExternalId: true });
    profileId = (await ok('POST', `${CS}/${systemId}/run-profiles`, { name: 'Import', runType: 'FullImport', pageSize: 100 })).id;
    // The worker consumes jobs once it has logged so.
    await waitFor(async () => logLines('worker').some((l) => /consuming jobs/.test(String(l.message))), 30_000, 100);
  }, 120_000);

  afterAll(async () => {
    for (const p of [web, worker, scheduler]) {
      if (!p) continue;
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
      await p.stop();
      clearTimeout(timer);
    }
    pg?.destroy();
    redis?.destroy();
    await env?.cleanup().catch(() => undefined);
    if (files) rmSync(files, { recursive: true, force: true });
  }, 60_000);

  async function call(method: string, path: string, json?: unknown): Promise<Answer> {
    const res = await fetch(`${base}${path}`, {
      method,
      body: json === undefined ? undefined : JSON.stringify(json),
      headers: { 'X-Api-Key': env.bootstrapKey, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    });
    await checkAnswer(method, `${base}${path}`, res);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, retryAfter: res.headers.get('retry-after') };
  }

  async function ok(method: string, path: string, json?: unknown): Promise<any> {
    const answer = await call(method, path, json);
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** The requests of the loop: reads, a write, the queue probe, a run-profile execute, readiness. */
  const requests = {
    list: () => call('GET', `${CS}?page=1&pageSize=10`),
    activities: () => call('GET', '/api/v1/activities?page=1&pageSize=10'),
    write: () =>
      call('POST', CS, {
        name: `Outage write ${++writes}`,
        connectorType: 'File',
        settings: { filePath: 'hr/people.csv', mode: 'Import', objectType: 'person' },
      }),
    probe: () => call('POST', '/api/v1/system/queue-probes'),
    execute: () => call('POST', `${CS}/${systemId}/run-profiles/${profileId}/execute`),
    ready: () => call('GET', '/api/v1/health/ready'),
  };

  /** A 503 as a client must see it: Retry-After, the standard error body, the dependency named. */
  function expectUnavailable(label: string, answer: Answer, dependency: string): void {
    expect({ label, status: answer.status, retryAfter: answer.retryAfter }).toEqual({ label, status: 503, retryAfter: '5' });
    expect(answer.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining(dependency),
      errorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      timestamp: expect.any(String),
      path: expect.stringMatching(/^\/api\/v1\//),
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at \w+ \(/);
  }

  /** Runs the profile and waits until the activity has ended; returns it. */
  async function runToEnd(deadline: number): Promise<any> {
    const started = await waitFor(
      async () => {
        const answer = await requests.execute();
        return answer.status === 202 ? answer.body : null;
      },
      Math.max(deadline - Date.now(), 1),
      50,
    );
    return waitFor(
      async () => {
        const activity = await ok('GET', `/api/v1/activities/${started.activityId}`);
        return activity.status === 'InProgress' ? null : activity;
      },
      Math.max(deadline - Date.now(), 1),
      50,
    );
  }

  function processesAlive(): void {
    for (const p of [web, worker, scheduler])
      expect({ name: p.name, exitCode: p.child.exitCode, signal: p.child.signalCode }).toEqual({
        name: p.name,
        exitCode: null,
        signal: null,
      });
  }

  function logLines(service: string): Array<Record<string, any>> {
    return readdirSync(env.logDir)
      .filter((f) => f.startsWith(`${service}-`) && /\.log(\.\d+)?$/.test(f))
      .flatMap((f) => readFileSync(join(env.logDir, f), 'utf8').split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }

  it('works before anything fails: reads, writes, the queue probe and a run', async () => {
    for (const [label, request] of Object.entries(requests)) {
      const answer = await request();
      expect({ label, status: answer.status }).toEqual({
        label,
        status: label === 'write' ? 201 : label === 'probe' || label === 'execute' ? 202 : 200,
      });
    }
    const activity = await runToEnd(Date.now() + 30_000);
    expect(activity.status).toMatch(/^Complete/);
  }, 60_000);

  it('PostgreSQL stopped: every request that needs it answers 503 with Retry-After naming the database; readiness says so', async () => {
    await pg.stop();
    outages.database++;
    for (let round = 0; round < 3; round++) {
      for (const [label, request] of Object.entries(requests)) {
        const answer = await request();
        if (label === 'ready') {
          expect(answer.status).toBe(503);
          expect(answer.body).toMatchObject({ status: 'not_ready', checks: { database: 'failed' } });
          expect(answer.body.reasons.join(' ')).toMatch(/database unreachable/);
        } else {
          expectUnavailable(label, answer, DATABASE);
        }
      }
    }
    // What needs no database still answers.
    expect((await call('GET', '/api/v1/health/live')).status).toBe(200);
  }, 60_000);

  it('PostgreSQL back: requests succeed again within 3 s, same processes', async () => {
    await pg.start();
    const deadline = Date.now() + RECOVERY_MS;
    await waitFor(async () => (await requests.list()).status === 200, RECOVERY_MS, 50);
    for (const [label, request] of Object.entries({
      activities: requests.activities,
      write: requests.write,
      probe: requests.probe,
      ready: requests.ready,
    })) {
      const answer = await waitFor(
        async () => {
          const a = await request();
          return a.status < 300 ? a : null;
        },
        Math.max(deadline - Date.now(), 1),
        50,
      ).catch(() => null);
      expect({ label, recovered: answer !== null }).toEqual({ label, recovered: true });
    }
    const activity = await runToEnd(Date.now() + 30_000);
    expect(activity.status).toMatch(/^Complete/);
    processesAlive();
  }, 60_000);

  it('PostgreSQL restarted under a steady read load: no 500, only answers or 503s with Retry-After', async () => {
    const statuses = new Map<number, number>();
    const unavailable: Answer[] = [];
    let running = true;
    const reader = async (read: () => Promise<Answer>) => {
      while (running) {
        const answer = await read().catch(() => ({ status: 0, body: null, retryAfter: null }));
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 503) unavailable.push(answer);
      }
    };
    const readers = [reader(requests.list), reader(requests.activities), reader(requests.list)];
    await new Promise((r) => setTimeout(r, 500));
    await pg.stop();
    outages.database++;
    await pg.start();
    await new Promise((r) => setTimeout(r, 1500));
    running = false;
    await Promise.all(readers);
    const seen = Object.fromEntries(statuses);
    expect(Object.keys(seen).sort()).toEqual(expect.arrayContaining(['200']));
    expect(Object.keys(seen).filter((s) => s !== '200' && s !== '503')).toEqual([]);
    for (const answer of unavailable) expectUnavailable('read during restart', answer, DATABASE);
    // Reads flow again at the end of the loop.
    expect((await requests.list()).status).toBe(200);
    processesAlive();
  }, 60_000);

  it('Redis stopped: lists still work; the queue probe and execute answer 503 with Retry-After naming the queue', async () => {
    await redis.stop();
    outages.queue++;
    // Long enough for reconnection back-off to grow (BullMQ's default reaches 8 s after 9 attempts).
    const until = Date.now() + REDIS_OUTAGE_MS;
    let rounds = 0;
    while (Date.now() < until || rounds < 3) {
      rounds++;
      expect((await requests.list()).status).toBe(200);
      expect((await requests.activities()).status).toBe(200);
      expectUnavailable('probe', await requests.probe(), QUEUE);
      const execute = await requests.execute();
      expectUnavailable('execute', execute, QUEUE);
      // The activity of a run that could not be queued is failed, not left InProgress.
      const failed = await ok('GET', `/api/v1/activities/${execute.body.details.activityId}`);
      expect(failed.status).toBe('FailedWithError');
      const ready = await requests.ready();
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'not_ready', checks: { database: 'ok', redis: 'failed' } });
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 60_000);

  it('Redis back: a run profile execute is picked up and completes within 3 s of Redis answering', async () => {
    await redis.start();
    const activity = await runToEnd(Date.now() + RECOVERY_MS);
    expect(activity.status).toMatch(/^Complete/);
    expect((await requests.ready()).status).toBe(200);
    // Redis came back empty: the worker registers the repeatable jobs (housekeeping, history cleanup) again.
    await waitFor(async () => (await redis.keys(`${env.redisPrefix}:jobs:repeat*`)).length > 0, 10_000, 100);
    processesAlive();
  }, 60_000);

  it('logs each outage once per process as a warning, its end as information, and never a stack trace', async () => {
    // Let the processes notice the last recovery on their own connections.
    await new Promise((r) => setTimeout(r, 1500));
    for (const p of [web, worker, scheduler]) {
      const output = p.output();
      expect({ service: p.name, stack: output.match(/^\s+at .*$/m)?.[0] ?? null }).toEqual({ service: p.name, stack: null });
      expect({ service: p.name, dumps: /Unhandled error|\[ioredis\]|ECONNREFUSED/.test(output) }).toEqual({
        service: p.name,
        dumps: false,
      });
      const lines = logLines(p.name);
      const traces = lines.filter((l) => typeof l.exception === 'string' || /\n\s+at /.test(String(l.message)));
      expect({ service: p.name, traces: traces.map((l) => l.message) }).toEqual({ service: p.name, traces: [] });
      expect({ service: p.name, errors: lines.filter((l) => l.level === 'Error' || l.level === 'Fatal').map((l) => l.message) }).toEqual({
        service: p.name,
        errors: [],
      });
      const starts = (name: string) => lines.filter((l) => l.level === 'Warning' && l.message.startsWith(`${name} is unavailable`)).length;
      const ends = (name: string) =>
        lines.filter((l) => l.level === 'Information' && l.message.startsWith(`${name} is available again`)).length;
      // On a mismatch, the lines of that dependency show in the failure (when and what started and ended each outage).
      const about = (name: string) =>
        lines.filter((l) => String(l.message).startsWith(name)).map((l) => `${l.timestamp ?? ''} ${l.level}: ${l.message}`);
      expect({
        service: p.name,
        database: starts(DATABASE) <= outages.database || about(DATABASE),
        queue: starts(QUEUE) <= outages.queue || about(QUEUE),
      }).toEqual({
        service: p.name,
        database: true,
        queue: true,
      });
      expect({ service: p.name, unended: starts(DATABASE) - ends(DATABASE) + starts(QUEUE) - ends(QUEUE) }).toEqual({
        service: p.name,
        unended: 0,
      });
    }
    // The web process met every outage through requests; the worker holds Redis connections all the time;
    // the scheduler's leader connection sees PostgreSQL go (two outages close together may be one to it).
    const webLines = logLines('web');
    expect(webLines.filter((l) => l.level === 'Warning' && l.message.startsWith(`${DATABASE} is unavailable`))).toHaveLength(
      outages.database,
    );
    expect(webLines.filter((l) => l.level === 'Warning' && l.message.startsWith(`${QUEUE} is unavailable`))).toHaveLength(outages.queue);
    expect(logLines('worker').filter((l) => l.level === 'Warning' && l.message.startsWith(`${QUEUE} is unavailable`))).toHaveLength(
      outages.queue,
    );
    const schedulerOutages = logLines('scheduler').filter(
      (l) => l.level === 'Warning' && l.message.startsWith(`${DATABASE} is unavailable`),
    );
    expect(schedulerOutages.length).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('SIGTERM: each service logs that it stops and what it released, then exits', async () => {
    const expected: Record<string, RegExp[]> = {
      web: [/^HTTP server closed/, /^Job queue connections closed/, /^Database pool closed/],
      worker: [/^Worker of .* closed/, /^Job queue connections closed/, /^Database pool closed/],
      scheduler: [/^Leader (lock released|election connection closed)/, /^Job queue connections closed/, /^Database pool closed/],
    };
    for (const p of [web, worker, scheduler]) {
      const code = await p.stop('SIGTERM');
      expect({ service: p.name, code }).toEqual({ service: p.name, code: 0 });
      const messages = logLines(p.name).map((l) => String(l.message));
      const stopping = messages.findIndex((m) => m === `Meridian ${p.name} stopping (SIGTERM).`);
      const stopped = messages.findIndex((m) => new RegExp(`^Meridian ${p.name} stopped in \\d+ ms\\.$`).test(m));
      expect({ service: p.name, stopping: stopping >= 0, stopped: stopped > stopping }).toEqual({
        service: p.name,
        stopping: true,
        stopped: true,
      });
      for (const released of expected[p.name]) {
        const at = messages.findIndex((m) => released.test(m));
        expect({ service: p.name, released: String(released), between: at > stopping && at < stopped }).toEqual({
          service: p.name,
          released: String(released),
          between: true,
        });
      }
    }
  }, 60_000);
});
