import { createMeridianClient, ErrorBody, MeridianApiError, MeridianClient, Middleware, unwrap } from '@meridian/api-client';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebApp, WebHarness } from './harness';

const LIBRARY = join(__dirname, '..', '..', '..', 'libs', 'api-client');
const STALE = 'The committed API client does not match the served OpenAPI document: run `npm run api-client` and commit libs/api-client.';

/** Where two JSON values differ, as `path: committed → served` lines. */
function jsonDifferences(committed: unknown, served: unknown, at = '$'): string[] {
  if (Object.is(committed, served)) return [];
  const bothObjects =
    committed &&
    served &&
    typeof committed === 'object' &&
    typeof served === 'object' &&
    Array.isArray(committed) === Array.isArray(served);
  if (!bothObjects) return [`${at}: ${JSON.stringify(committed)} → ${JSON.stringify(served)}`];
  const a = committed as Record<string, unknown>;
  const b = served as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((k) => jsonDifferences(a[k], b[k], Array.isArray(a) ? `${at}[${k}]` : `${at}.${k}`));
}

/** The first line where two texts differ, or null when they are equal. */
function firstDifferentLine(committed: string, generated: string): string | null {
  if (committed === generated) return null;
  const a = committed.split('\n');
  const b = generated.split('\n');
  const i = a.findIndex((line, n) => line !== b[n]);
  const line = i < 0 ? a.length : i;
  return `line ${line + 1}: committed ${JSON.stringify(a[line] ?? '<end of file>')}, generated ${JSON.stringify(b[line] ?? '<end of file>')}`;
}

function expectFresh(what: string, differences: string[]): void {
  if (differences.length) throw new Error(`${STALE}\n${what}:\n  ${differences.slice(0, 20).join('\n  ')}`);
}

describe('typed API client (libs/api-client) against the web app', () => {
  let h: WebHarness;
  let baseUrl: string;
  let api: MeridianClient;

  beforeAll(async () => {
    h = await startWebApp();
    await h.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(h.app.getHttpServer().address() as AddressInfo).port}`;
    api = createMeridianClient({ baseUrl, apiKey: h.adminKey });
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('is generated from the document the web app serves', () => {
    let served: unknown;
    let out: string;

    beforeAll(async () => {
      const res = await fetch(`${baseUrl}/api/openapi.json`);
      expect(res.status).toBe(200);
      served = await res.json();
      out = mkdtempSync(join(tmpdir(), 'meridian-api-client-'));
      writeFileSync(join(out, 'served.json'), JSON.stringify(served));
      // The generator loads ESM code (openapi-typescript, prettier) that jest cannot run in-process.
      const run = spawnSync(process.execPath, [join(LIBRARY, 'codegen.js'), join(out, 'served.json'), '--out', out], { encoding: 'utf8' });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    });
    afterAll(() => {
      if (out) rmSync(out, { recursive: true, force: true });
    });

    it('libs/api-client/openapi.json is the served document, in its committed form', () => {
      const committed = readFileSync(join(LIBRARY, 'openapi.json'), 'utf8');
      expectFresh('openapi.json differs from GET /api/openapi.json', jsonDifferences(JSON.parse(committed), served));
      const difference = firstDifferentLine(committed, readFileSync(join(out, 'openapi.json'), 'utf8'));
      expectFresh('openapi.json is not in its generated form (key order, formatting)', difference ? [difference] : []);
    });

    it('libs/api-client/src/schema.ts is what openapi-typescript makes of the served document', () => {
      const difference = firstDifferentLine(
        readFileSync(join(LIBRARY, 'src', 'schema.ts'), 'utf8'),
        readFileSync(join(out, 'src', 'schema.ts'), 'utf8'),
      );
      expectFresh('src/schema.ts differs from the types generated now', difference ? [difference] : []);
    });
  });

  describe('calls the API', () => {
    it('sends path parameters, query parameters and bodies, and returns the typed answer with its status', async () => {
      const version = await api.GET('/api/v1/health/version');
      expect(version.response.status).toBe(200);
      expect(version.data).toEqual({ product: 'Meridian', version: expect.any(String) });

      const created = await api.POST('/api/v1/apikeys', {
        body: { name: 'Typed client', description: 'Created by the client', roles: [] },
      });
      expect(created.response.status).toBe(201);
      expect(created.error).toBeUndefined();
      const { key, ...view } = created.data!;
      expect(key).toMatch(/^mer_/);
      expect(view).toMatchObject({ name: 'Typed client', description: 'Created by the client', roles: [], isEnabled: true });

      const got = await api.GET('/api/v1/apikeys/{id}', { params: { path: { id: view.id } } });
      expect(got.data).toEqual(view);

      const updated = await api.PUT('/api/v1/apikeys/{id}', { params: { path: { id: view.id } }, body: { isEnabled: false } });
      expect(updated.data).toMatchObject({ id: view.id, isEnabled: false });
      const deleted = await api.DELETE('/api/v1/apikeys/{id}', { params: { path: { id: view.id } } });
      expect(deleted.response.status).toBe(204);
      expect((await api.GET('/api/v1/apikeys/{id}', { params: { path: { id: view.id } } })).response.status).toBe(404);

      const page = await api.GET('/api/v1/activities', { params: { query: { page: 1, pageSize: 1, sortDirection: 'desc' } } });
      expect(page.data).toMatchObject({ page: 1, pageSize: 1 });
      expect(page.data!.items.length).toBeLessThanOrEqual(1);
      expect(page.data!.items[0]).toMatchObject({ targetType: 'ApiKey' });
    });

    it('surfaces an error answer as the typed error body with its status', async () => {
      const missing = await api.GET('/api/v1/apikeys/{id}', { params: { path: { id: randomUUID() } } });
      expect(missing.data).toBeUndefined();
      expect(missing.response.status).toBe(404);
      const notFound: ErrorBody = missing.error!;
      expect(notFound).toMatchObject({ code: 'NOT_FOUND', path: expect.stringMatching(/^\/api\/v1\/apikeys\//) });

      const invalid = await api.POST('/api/v1/apikeys', { body: { name: '' } });
      expect(invalid.response.status).toBe(400);
      expect(invalid.error).toMatchObject({ code: 'VALIDATION_ERROR', validationErrors: { name: [expect.any(String)] } });

      const badPage = await api.GET('/api/v1/activities', { params: { query: { pageSize: 0 } } });
      expect(badPage.error).toMatchObject({ code: 'VALIDATION_ERROR', validationErrors: { pageSize: [expect.any(String)] } });
    });

    it('unwrap returns the data of a success and throws the status and error body otherwise', async () => {
      expect(await unwrap(api.GET('/api/v1/health/version'))).toMatchObject({ product: 'Meridian' });
      expect((await unwrap(api.POST('/api/v1/apikeys', { body: { name: 'Unwrapped' } }), 201)).name).toBe('Unwrapped');

      const failure = await unwrap(api.GET('/api/v1/apikeys/{id}', { params: { path: { id: randomUUID() } } })).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(MeridianApiError);
      expect(failure).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      expect((failure as Error).message).toMatch(/\/api\/v1\/apikeys\/.* answered 404 NOT_FOUND/);
      // A success with another status than the expected one is refused too.
      await expect(unwrap(api.GET('/api/v1/health/version'), 201)).rejects.toMatchObject({ status: 200 });
    });

    it('sends the credentials it was given: none, an API key, or a bearer token', async () => {
      const seen: Array<{ apiKey: string | null; authorization: string | null }> = [];
      const recordHeaders: Middleware = {
        onRequest: ({ request }) => {
          seen.push({ apiKey: request.headers.get('x-api-key'), authorization: request.headers.get('authorization') });
        },
      };

      const anonymous = createMeridianClient({ baseUrl: `${baseUrl}/`, middleware: [recordHeaders] });
      const refused = await anonymous.GET('/api/v1/userinfo');
      expect(refused.response.status).toBe(401);
      expect(refused.error).toMatchObject({ code: 'UNAUTHORISED' });
      expect((await anonymous.GET('/api/v1/health/version')).response.status).toBe(200);

      const withKey = createMeridianClient({
        baseUrl,
        apiKey: h.adminKey,
        headers: { 'X-Correlation-Id': 'typed-client' },
        middleware: [recordHeaders],
      });
      const me = await withKey.GET('/api/v1/userinfo');
      expect(me.response.status).toBe(200);
      expect(me.response.headers.get('x-correlation-id')).toBe('typed-client');

      const withToken = createMeridianClient({ baseUrl, bearerToken: 'not-a-token', middleware: [recordHeaders] });
      expect((await withToken.GET('/api/v1/userinfo')).error).toMatchObject({ code: 'UNAUTHORISED' });

      expect(seen).toEqual([
        { apiKey: null, authorization: null },
        { apiKey: null, authorization: null },
        { apiKey: h.adminKey, authorization: null },
        { apiKey: null, authorization: 'Bearer not-a-token' },
      ]);
    });

    it('runs hooks on every request and response, so a test can check each answer in one place', async () => {
      const answers: string[] = [];
      const client = createMeridianClient({ baseUrl, apiKey: h.adminKey });
      client.use({
        onResponse: ({ request, schemaPath, response }) => {
          answers.push(`${request.method} ${schemaPath} ${response.status} ${response.headers.get('content-type')?.split(';')[0]}`);
        },
      });
      await client.GET('/api/v1/service-settings/{key}', { params: { path: { key: 'History.RetentionPeriod' } } });
      await client.GET('/api/v1/service-settings/{key}', { params: { path: { key: 'No.Such.Setting' } } });
      await client.GET('/api/v1/synchronisation/connectors');
      expect(answers).toEqual([
        'GET /api/v1/service-settings/{key} 200 application/json',
        'GET /api/v1/service-settings/{key} 404 application/json',
        'GET /api/v1/synchronisation/connectors 200 application/json',
      ]);
    });
  });
});
