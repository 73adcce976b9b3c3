import { waitFor } from '@meridian/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

describe('unexpected server errors', () => {
  let h: WebHarness;
  beforeAll(async () => { h = await startWebApp(); });
  afterAll(async () => { await h?.close(); });

  it('answer 500 INTERNAL_ERROR with an error id that is in the log, and no stack trace or SQL', async () => {
    // Break the database behind the service's back so the next probe insert fails unexpectedly.
    const c = new Client({ connectionString: h.db.url });
    await c.connect();
    await c.query('ALTER TABLE queue_probe RENAME TO queue_probe_moved');
    await c.end();

    const res = await h.http.post('/api/v1/system/queue-probes').set('X-Api-Key', h.adminKey).expect(500);
    expect(res.body).toEqual({
      code: 'INTERNAL_ERROR',
      message: `An internal error occurred. Quote error id ${res.body.errorId} when reporting it.`,
      errorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      timestamp: expect.any(String),
      path: '/api/v1/system/queue-probes',
    });
    expect(JSON.stringify(res.body)).not.toMatch(/queue_probe|relation|at \w+ \(|\.ts:/);

    const line = await waitFor(async () => {
      for (const f of readdirSync(h.env.logDir).filter((n) => n.startsWith('web-'))) {
        const hit = readFileSync(join(h.env.logDir, f), 'utf8').split('\n').find((l) => l.includes(res.body.errorId));
        if (hit) return JSON.parse(hit);
      }
      return null;
    });
    expect(line).toMatchObject({ level: 'Error', levelShort: 'ERR', service: 'web' });
    expect(line.exception).toMatch(/queue_probe/);
    expect(line.correlationId).toBe(res.headers['x-correlation-id']);
  });

  it('never writes the API key secret to the log', async () => {
    const created = await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'log check', roles: [] }).expect(201);
    await h.http.get('/api/v1/userinfo').set('X-Api-Key', created.body.key).expect(200);
    await h.http.get('/api/v1/userinfo').set('X-Api-Key', `${created.body.key}x`).expect(401);
    await new Promise((r) => setTimeout(r, 300));
    const all = readdirSync(h.env.logDir).filter((n) => n.endsWith('.log') || /\.log\.\d+$/.test(n))
      .map((f) => readFileSync(join(h.env.logDir, f), 'utf8')).join('\n');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain(created.body.key);
    expect(all).not.toContain(h.adminKey);
  });
});
