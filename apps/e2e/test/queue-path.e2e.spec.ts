import { createTestDatabase, createTestEnvironment, fetchApi, HttpMethod, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { freePort, ServiceProcess, startService, waitForHttp } from './processes';

describe('web → Redis → worker → PostgreSQL (real processes)', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let web: ServiceProcess;
  let worker: ServiceProcess;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase('e2e');
    const port = await freePort();
    env = createTestEnvironment(db.url, { PORT: String(port) });
    base = `http://127.0.0.1:${port}`;
    web = startService('web', env.env);
    worker = startService('worker', env.env);
    await waitForHttp(`${base}/api/v1/health/ready`);
  });

  afterAll(async () => {
    await web?.stop();
    await worker?.stop();
    await env?.cleanup();
    await db?.drop();
  });

  const api = (method: HttpMethod, path: string) => fetchApi(base, env.bootstrapKey, method, path);

  it('a queue probe posted to web is processed by the worker process and recorded in the database', async () => {
    const started = await api('post', '/api/v1/system/queue-probes');
    expect(started.status).toBe(202);
    const probe = started.body;
    expect(probe.status).toBe('Queued');

    const done = await waitFor(async () => {
      const body = (await api('get', `/api/v1/system/queue-probes/${probe.id}`)).body;
      return body.status === 'Processed' ? body : null;
    });
    expect(done.processedBy).toMatch(new RegExp(`:${worker.child.pid}$`));
    expect(new Date(done.processedAt).getTime()).toBeGreaterThanOrEqual(new Date(done.requestedAt).getTime());
  });

  it('keeps the job when the worker is down and processes it once the worker is back', async () => {
    await worker.stop();
    const probe = (await api('post', '/api/v1/system/queue-probes')).body;
    await new Promise((r) => setTimeout(r, 500));
    expect((await api('get', `/api/v1/system/queue-probes/${probe.id}`)).body.status).toBe('Queued');
    worker = startService('worker', env.env);
    const done = await waitFor(async () => {
      const body = (await api('get', `/api/v1/system/queue-probes/${probe.id}`)).body;
      return body.status === 'Processed' ? body : null;
    }, 30_000);
    expect(done.processedBy).toMatch(new RegExp(`:${worker.child.pid}$`));
  });

  it('writes JSON log lines for each service', async () => {
    const { readdirSync } = await import('node:fs');
    const files = readdirSync(env.logDir);
    expect(files.some((f) => /^web-\d{4}-\d{2}-\d{2}\.log$/.test(f))).toBe(true);
    expect(files.some((f) => /^worker-\d{4}-\d{2}-\d{2}\.log$/.test(f))).toBe(true);
  });
});
