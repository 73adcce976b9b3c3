import { MeridianClient } from '@meridian/api-client';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { apiClient } from './api';
import { freePort, ServiceProcess, startService, waitForHttp } from './processes';

describe('web → Redis → worker → PostgreSQL (real processes)', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let web: ServiceProcess;
  let worker: ServiceProcess;
  let base: string;
  let api: MeridianClient;

  beforeAll(async () => {
    db = await createTestDatabase('e2e');
    const port = await freePort();
    env = createTestEnvironment(db.url, { PORT: String(port) });
    base = `http://127.0.0.1:${port}`;
    api = apiClient(base, env.bootstrapKey);
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

  const probe = async (id: string) => (await api.GET('/api/v1/system/queue-probes/{id}', { params: { path: { id } } })).data!;

  it('a queue probe posted to web is processed by the worker process and recorded in the database', async () => {
    const started = await api.POST('/api/v1/system/queue-probes');
    expect(started.response.status).toBe(202);
    const queued = started.data!;
    expect(queued.status).toBe('Queued');

    const done = await waitFor(async () => {
      const body = await probe(queued.id);
      return body.status === 'Processed' ? body : null;
    });
    expect(done.processedBy).toMatch(new RegExp(`:${worker.child.pid}$`));
    expect(new Date(done.processedAt!).getTime()).toBeGreaterThanOrEqual(new Date(done.requestedAt).getTime());
  });

  it('keeps the job when the worker is down and processes it once the worker is back', async () => {
    await worker.stop();
    const queued = (await api.POST('/api/v1/system/queue-probes')).data!;
    await new Promise((r) => setTimeout(r, 500));
    expect((await probe(queued.id)).status).toBe('Queued');
    worker = startService('worker', env.env);
    const done = await waitFor(async () => {
      const body = await probe(queued.id);
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
