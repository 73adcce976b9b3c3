import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { builtInConnectors, Connector, ConnectorContext, ConnectorRegistry } from '@meridian/connectors';
import { closeLogger, createServiceLogger, createValidationPipe, loadConfig, Logger } from '@meridian/platform';
import { authorisedRequest, createTestDatabase, createTestEnvironment, HttpMethod, TestDatabase, TestEnvironment } from '@meridian/testing';
import express from 'express';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { AppModule } from '../src/app.module';
import { setupOpenApi } from '../src/http/openapi';
import { checkResponsesAgainstDocument, OpenApiCheck } from './harness';

const BASE = '/api/v1/synchronisation/connected-systems';
const PASSWORD = 'S3cret-Passw0rd-Never-Shown';
const NEW_PASSWORD = 'An0ther-Secret-Value-Never-Shown';

/** A connector with a secret setting; registered only in this test's application (the File connector has no secrets). */
const vault: Connector = {
  type: 'Vault',
  displayName: 'Test vault',
  description: 'A connector with a password, for tests.',
  capabilities: { fullImport: true, deltaImport: false, export: false, schemaDiscovery: false, paging: false, autoConfirmExport: false },
  settings: [
    { name: 'host', displayName: 'Host', description: '', type: 'String', required: true, secret: false },
    { name: 'password', displayName: 'Password', description: '', type: 'Password', required: true, secret: true },
  ],
  async testConnection(ctx: ConnectorContext) {
    return ctx.settings.password === PASSWORD
      ? { success: true, message: 'Signed in.' }
      : { success: false, message: `Wrong password ${String(ctx.settings.password)}` };
  },
  async discoverSchema() {
    return { objectTypes: [] };
  },
  import() {
    throw new Error('not used');
  },
  async openExport() {
    throw new Error('not used');
  },
};

/** Secret settings over HTTP: never in a response, an error, an activity, a log line or the database in clear. */
describe('Connected systems: secret settings over HTTP', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  let app: INestApplication;
  let pg: Client;
  let openApi: OpenApiCheck;
  let appClosed = false;
  const bodies: string[] = [];

  const api = async (method: HttpMethod, path: string, body?: unknown) => {
    const res = await authorisedRequest(request(app.getHttpServer()), env.bootstrapKey, method, path, body);
    bodies.push(res.text);
    return res;
  };

  beforeAll(async () => {
    db = await createTestDatabase('web-secrets');
    env = createTestEnvironment(db.url);
    const config = loadConfig('web', env.env);
    logger = createServiceLogger({ service: 'web', logDir: config.logDir, level: 'Debug', console: false });
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config, logger)] })
      .overrideProvider(ConnectorRegistry)
      .useValue(new ConnectorRegistry([...builtInConnectors(), vault]))
      .compile();
    app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
    app.use(express.json());
    app.useGlobalPipes(createValidationPipe());
    setupOpenApi(app, config.version);
    await app.init();
    openApi = await checkResponsesAgainstDocument(app);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    if (!appClosed) await app?.close();
    if (logger) await closeLogger(logger);
    await env?.cleanup();
    await db?.drop();
    openApi?.assertConforms();
  });

  it('never returns, logs or stores a secret in clear, and keeps it when an update omits it', async () => {
    const created = await api('post', BASE, {
      name: 'Vault',
      connectorType: 'Vault',
      settings: { host: 'vault.example', password: PASSWORD },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ settings: { host: 'vault.example' }, secretSettingsSet: ['password'] });
    expect(created.body.settings).not.toHaveProperty('password');
    const id = created.body.id;

    expect((await api('get', `${BASE}/${id}`)).body.secretSettingsSet).toEqual(['password']);
    await api('get', BASE);
    expect((await api('post', `${BASE}/${id}/test-connection`)).body).toEqual({ success: true, message: 'Signed in.', details: null });

    // Omitted: kept. Errors in the same request do not echo it either.
    expect((await api('put', `${BASE}/${id}`, { settings: { host: 'vault2.example' } })).body.secretSettingsSet).toEqual(['password']);
    expect((await api('post', `${BASE}/${id}/test-connection`)).body.success).toBe(true);
    const invalid = await api('put', `${BASE}/${id}`, { settings: { password: NEW_PASSWORD, colour: 'red' } });
    expect(invalid.status).toBe(400);
    expect(Object.keys(invalid.body.validationErrors)).toEqual(['settings.colour']);
    const required = await api('put', `${BASE}/${id}`, { settings: { password: null } });
    expect(Object.keys(required.body.validationErrors)).toEqual(['settings.password']);

    // Replaced: the connector now sees the new value, and its message does not leak it.
    expect((await api('put', `${BASE}/${id}`, { settings: { password: NEW_PASSWORD } })).status).toBe(200);
    expect((await api('post', `${BASE}/${id}/test-connection`)).body).toEqual({
      success: false,
      message: 'Wrong password ********',
      details: null,
    });

    const activities = await api('get', '/api/v1/activities?pageSize=100');
    for (const a of activities.body.items) await api('get', `/api/v1/activities/${a.id}`);

    const [row] = (await pg.query(`SELECT * FROM connected_system WHERE id = $1`, [id])).rows;
    const stored = JSON.stringify(row);
    const activityRows = JSON.stringify((await pg.query(`SELECT * FROM activity`)).rows);
    // Close the app first (its shutdown logs too), then flush the log to read it whole.
    await app.close();
    appClosed = true;
    await closeLogger(logger).catch(() => undefined);
    const logs = readdirSync(env.logDir)
      .map((f) => readFileSync(join(env.logDir, f), 'utf8'))
      .join('\n');
    for (const secret of [PASSWORD, NEW_PASSWORD]) {
      for (const text of [...bodies, stored, activityRows, logs]) expect(text).not.toContain(secret);
    }
    expect(JSON.parse(row.secret_settings).password).toMatch(/^v1\./);
  });
});
