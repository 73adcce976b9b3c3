import * as fs from 'node:fs';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

/** Sends bytes supertest cannot (a raw NUL in a header or the request line) and returns the status and body. */
async function rawRequest(h: WebHarness, text: string): Promise<{ status: number; body: string }> {
  const server = h.app.getHttpServer() as import('node:http').Server;
  if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let data = '';
    socket.on('data', (d) => (data += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('NUL characters in requests', () => {
  let h: WebHarness;
  const admin = () => ({ 'X-Api-Key': h.adminKey });

  beforeAll(async () => {
    h = await startWebApp();
  });

  afterAll(async () => {
    await h?.close();
  });

  const expectRefused = (res: { status: number; body: Record<string, unknown> }, field: string) => {
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(res.body.validationErrors).toEqual({ [field]: ['must not contain NUL (\\u0000) characters'] });
    expect(res.body.timestamp).toEqual(expect.any(String));
  };

  it('refuses a percent-encoded NUL in the path, before any route or lookup', async () => {
    expectRefused(await h.http.get('/api/v1/service-settings/Sync%00PageSize').set(admin()), 'path');
    expectRefused(await h.http.get('/api/v1/metaverse/objects/%00').set(admin()), 'path');
    expectRefused(await h.http.get('/api/v1/no-such-route%00'), 'path');
  });

  it('refuses a NUL in a query parameter, naming it', async () => {
    expectRefused(await h.http.get('/api/v1/activities?search=a%00b').set(admin()), 'search');
    expectRefused(await h.http.get('/api/v1/metaverse/objects?objectType=User&name=%00').set(admin()), 'name');
    expectRefused(await h.http.get('/api/v1/activities?se%00arch=x').set(admin()), 'query');
  });

  it('refuses a NUL in any string or property name of a JSON body, naming the field', async () => {
    const db = new Client({ connectionString: h.db.url });
    await db.connect();
    const count = async () => Number((await db.query('SELECT count(*) FROM metaverse_object')).rows[0].count);
    const before = await count();
    try {
      const post = (body: unknown) =>
        h.http
          .post('/api/v1/metaverse/objects')
          .set(admin())
          .send(body as object);
      expectRefused(await post({ objectType: 'User', attributes: { 'Display Name': 'Ada\u0000' } }), 'attributes.Display Name');
      expectRefused(await post({ objectType: 'User', attributes: { Emails: ['a@example.org', 'b\u0000'] } }), 'attributes.Emails.1');
      expectRefused(await post({ objectType: 'User', attributes: { 'Bad\u0000Name': 'x' } }), 'attributes');
      expectRefused(await post({ 'object\u0000Type': 'User' }), 'body');
      expectRefused(await post({ objectType: 'User\u0000' }), 'objectType');
      expectRefused(
        await h.http
          .put('/api/v1/service-settings/Sync.PageSize')
          .set(admin())
          .send({ value: ['a', { b: '\u0000' }] }),
        'value.1.b',
      );
      expect(await count()).toBe(before);
    } finally {
      await db.end();
    }
  });

  it('refuses a NUL in a header, naming it', async () => {
    expectRefused(await h.http.get('/api/v1/health').set('X-Client-Name', 'tool%00'), 'header.x-client-name');
    expectRefused(await h.http.get('/api/v1/userinfo').set(admin()).set('Accept-Language', 'en%00'), 'header.accept-language');
  });

  it('refuses a NUL in credentials with 401 UNAUTHORISED', async () => {
    const key = await h.http.get('/api/v1/userinfo').set('X-Api-Key', `${h.adminKey}%00`);
    expect([key.status, key.body.code]).toEqual([401, 'UNAUTHORISED']);
    const bearer = await h.http.get('/api/v1/userinfo').set('Authorization', 'Bearer abc%00def');
    expect([bearer.status, bearer.body.code]).toEqual([401, 'UNAUTHORISED']);
  });

  it('answers a raw NUL in a header or the request line with 400 and the error body', async () => {
    const header = await rawRequest(
      h,
      `GET /api/v1/userinfo HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${h.adminKey}\0\r\nConnection: close\r\n\r\n`,
    );
    expect(header.status).toBe(400);
    expect(JSON.parse(header.body)).toMatchObject({ code: 'BAD_REQUEST' });
    const line = await rawRequest(h, 'GET /api/v1/service-settings/a\0b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(line.status).toBe(400);
    expect(JSON.parse(line.body)).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('still serves ordinary requests, and nothing was logged as an error', async () => {
    await h.http.get('/api/v1/activities?search=100%25').set(admin()).expect(200);
    const text = fs
      .readdirSync(h.env.logDir)
      .filter((f) => f.endsWith('.log'))
      .map((f) => fs.readFileSync(path.join(h.env.logDir, f), 'utf8'))
      .join('');
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: string; exception?: string });
    expect(lines.filter((l) => l.level === 'Error' || l.level === 'Fatal' || l.exception)).toEqual([]);
  });
});
