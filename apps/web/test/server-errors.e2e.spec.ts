import { waitFor } from '@meridian/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

describe('unexpected server errors', () => {
  let h: WebHarness;
  beforeAll(async () => {
    h = await startWebApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The web log line that mentions the error id, once it has been written. */
  const logLine = (errorId: string) =>
    waitFor(async () => {
      for (const f of readdirSync(h.env.logDir).filter((n) => n.startsWith('web-'))) {
        const hit = readFileSync(join(h.env.logDir, f), 'utf8')
          .split('\n')
          .find((l) => l.includes(errorId));
        if (hit) return JSON.parse(hit);
      }
      return null;
    });

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

    const line = await logLine(res.body.errorId);
    expect(line).toMatchObject({ level: 'Error', levelShort: 'ERR', service: 'web' });
    expect(line.exception).toMatch(/queue_probe/);
    expect(line.correlationId).toBe(res.headers['x-correlation-id']);
  });

  it('logs an expected 503 (single sign-on not configured) as a warning without a stack, whoever calls', async () => {
    const res = await h.http.get('/api/v1/auth/config').expect(503);
    expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/^Single sign-on is not configured/) });

    const line = await logLine(res.body.errorId);
    expect(line).toMatchObject({ level: 'Warning', levelShort: 'WRN', service: 'web', correlationId: res.headers['x-correlation-id'] });
    expect(line.message).toContain('Single sign-on is not configured');
    expect(line).not.toHaveProperty('exception');
    expect(JSON.stringify(line)).not.toMatch(/at \w+ \(|\.ts:\d/);
  });

  it('answers oversized headers and broken HTTP with the error body', async () => {
    const server = h.app.getHttpServer();
    if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    const raw = (payload: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(payload));
        let data = '';
        socket.on('data', (d) => {
          data += String(d);
        });
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
    const big = await raw(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(big.split('\r\n\r\n')[1])).toMatchObject({ code: 'BAD_REQUEST', message: 'The request headers are too large.' });
    const broken = await raw('NONSENSE\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(broken.split('\r\n\r\n')[1]).code).toBe('BAD_REQUEST');
  });

  it('never writes the API key secret to the log', async () => {
    const created = await h.http.post('/api/v1/apikeys').set('X-Api-Key', h.adminKey).send({ name: 'log check', roles: [] }).expect(201);
    await h.http.get('/api/v1/userinfo').set('X-Api-Key', created.body.key).expect(200);
    await h.http.get('/api/v1/userinfo').set('X-Api-Key', `${created.body.key}x`).expect(401);
    await new Promise((r) => setTimeout(r, 300));
    const all = readdirSync(h.env.logDir)
      .filter((n) => n.endsWith('.log') || /\.log\.\d+$/.test(n))
      .map((f) => readFileSync(join(h.env.logDir, f), 'utf8'))
      .join('\n');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain(created.body.key);
    expect(all).not.toContain(h.adminKey);
  });
});
