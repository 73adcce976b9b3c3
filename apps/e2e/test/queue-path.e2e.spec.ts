import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { createServer } from 'node:net';
import { ServiceProcess, startService, waitForHttp } from './processes';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

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

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${base}${path}`, { ...init, headers: { 'X-Api-Key': env.bootstrapKey, ...(init.headers ?? {}) } });
    return { status: res.status, json: async (): Promise<any> => res.json() };
  };

  it('a queue probe posted to web is processed by the worker process and recorded in the database', async () => {
    const started = await api('/api/v1/system/queue-probes', { method: 'POST' });
    expect(started.status).toBe(202);
    const probe = await started.json();
    expect(probe.status).toBe('Queued');

    const done = await waitFor(async () => {
      const body = await (await api(`/api/v1/system/queue-probes/${probe.id}`)).json();
      return body.status === 'Processed' ? body : null;
    });
    expect(done.processedBy).toMatch(new RegExp(`:${worker.child.pid}$`));
    expect(new Date(done.processedAt).getTime()).toBeGreaterThanOrEqual(new Date(done.requestedAt).getTime());
  });

  it('keeps the job when the worker is down and processes it once the worker is back', async () => {
    await worker.stop();
    const probe = await (await api('/api/v1/system/queue-probes', { method: 'POST' })).json();
    await new Promise((r) => setTimeout(r, 500));
    expect((await (await api(`/api/v1/system/queue-probes/${probe.id}`)).json()).status).toBe('Queued');
    worker = startService('worker', env.env);
    const done = await waitFor(async () => {
      const body = await (await api(`/api/v1/system/queue-probes/${probe.id}`)).json();
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
