import 'reflect-metadata';
import { Connector, ConnectorContext, ConnectorRegistry } from '@meridian/connectors';
import { DomainError, InitiatedByType } from '@meridian/domain';
import { dataSourceOptions, ensureDatabase, runMigrations } from '@meridian/persistence';
import { AppConfig, Logger, SecretBox } from '@meridian/platform';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { ConnectedSystemSchemaService } from './connected-system-schema.service';
import { ConnectedSystemsService } from './connected-systems.service';
import { ConnectorContextFactory } from './connector-context.factory';

const ADMIN_URL = process.env.MERIDIAN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PASSWORD = 'Correct-Horse-Battery-Staple-42';
const TOKEN = 'tok_9f8e7d6c5b4a';

/**
 * A connector with secret settings, for this test only (the File connector has none). It succeeds when
 * it receives the right password, and on failure echoes its settings the way a careless driver would.
 */
const vault: Connector = {
  type: 'Vault',
  displayName: 'Test vault',
  description: 'A connector with secrets, for tests.',
  capabilities: { fullImport: true, deltaImport: false, export: false, schemaDiscovery: false, paging: false, autoConfirmExport: false },
  settings: [
    { name: 'host', displayName: 'Host', description: '', type: 'String', required: true, secret: false },
    { name: 'username', displayName: 'User name', description: '', type: 'String', required: false, secret: false, defaultValue: 'admin' },
    { name: 'password', displayName: 'Password', description: '', type: 'Password', required: true, secret: true },
    { name: 'apiToken', displayName: 'API token', description: '', type: 'Password', required: false, secret: true },
  ],
  seen: [] as ConnectorContext['settings'][],
  async testConnection(ctx: ConnectorContext) {
    (vault as unknown as { seen: ConnectorContext['settings'][] }).seen.push({ ...ctx.settings });
    if (ctx.settings.password === PASSWORD) return { success: true, message: `Signed in to ${String(ctx.settings.host)}.` };
    return {
      success: false,
      message: `Login failed for ${String(ctx.settings.username)}:${String(ctx.settings.password)}@${String(ctx.settings.host)}`,
    };
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
} as Connector;
const seen = () => (vault as unknown as { seen: ConnectorContext['settings'][] }).seen;

describe('connected system secret settings (service, real database, test connector)', () => {
  const name = `meridian_secrets_${randomBytes(6).toString('hex')}`;
  const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  const initiator: Initiator = { type: InitiatedByType.ApiKey, id: null, name: 'test' };
  const logged: unknown[] = [];
  const logger = { log: (entry: unknown) => logged.push(entry) } as unknown as Logger;
  let ds: DataSource;
  let systems: ConnectedSystemsService;
  let schema: ConnectedSystemSchemaService;

  beforeAll(async () => {
    await ensureDatabase(url);
    await runMigrations(url);
    ds = await new DataSource(dataSourceOptions(url, 'secrets-test', 2)).initialize();
    const config = { encryptionKey: randomBytes(32), connectorFilesRoot: '/nonexistent' } as AppConfig;
    const activities = new ActivitiesService(ds);
    const contexts = new ConnectorContextFactory(new SecretBox(config), config, ds);
    const registry = new ConnectorRegistry([vault]);
    systems = new ConnectedSystemsService(ds, activities, registry, contexts);
    schema = new ConnectedSystemSchemaService(ds, activities, registry, contexts, logger);
  });

  afterAll(async () => {
    await ds?.destroy();
    const admin = await new DataSource({ type: 'postgres', url: ADMIN_URL }).initialize();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.destroy();
  });

  const row = async (id: number) => (await ds.query(`SELECT * FROM connected_system WHERE id = $1`, [id]))[0];
  const allActivityText = async () => JSON.stringify(await ds.query(`SELECT * FROM activity`));
  const expectNoSecrets = (text: string) => {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(TOKEN);
  };

  it('seals secrets at rest, returns only their names, and never writes them to activities or logs', async () => {
    const view = await systems.create(
      { name: 'Vault A', connectorType: 'vault', settings: { host: 'vault.example', password: PASSWORD, apiToken: TOKEN } },
      initiator,
    );
    expect(view.settings).toEqual({ host: 'vault.example', username: 'admin' });
    expect(view.secretSettingsSet).toEqual(['apiToken', 'password']);
    expectNoSecrets(JSON.stringify(view));
    expectNoSecrets(JSON.stringify(await systems.get(view.id)));
    expectNoSecrets(JSON.stringify(await systems.list()));

    const stored = await row(view.id);
    expectNoSecrets(JSON.stringify(stored));
    expect(stored.settings).toEqual({ host: 'vault.example', username: 'admin' });
    const sealed = JSON.parse(stored.secret_settings);
    expect(Object.keys(sealed).sort()).toEqual(['apiToken', 'password']);
    expect(sealed.password).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(Buffer.from(sealed.password.split('.')[3], 'base64url').toString('utf8')).not.toContain(PASSWORD.slice(0, 8));

    // The connector gets the decrypted values.
    expect(await schema.testConnection(view.id)).toEqual({ success: true, message: 'Signed in to vault.example.', details: null });
    expect(seen().at(-1)).toMatchObject({ host: 'vault.example', password: PASSWORD, apiToken: TOKEN });

    expectNoSecrets(await allActivityText());
    expectNoSecrets(JSON.stringify(logged));
  });

  it('keeps secrets an update omits (or sends as ""), replaces sent ones, clears optional ones sent as null', async () => {
    const view = await systems.create(
      { name: 'Vault B', connectorType: 'Vault', settings: { host: 'h1', password: PASSWORD, apiToken: TOKEN } },
      initiator,
    );
    const before = (await row(view.id)).secret_settings;

    const renamed = await systems.update(view.id, { settings: { host: 'h2', password: '' } }, initiator);
    expect(renamed.settings.host).toBe('h2');
    expect(renamed.secretSettingsSet).toEqual(['apiToken', 'password']);
    expect((await row(view.id)).secret_settings).toBe(before);
    expect((await schema.testConnection(view.id)).success).toBe(true);

    const changed = await systems.update(view.id, { settings: { password: 'new-secret-value' } }, initiator);
    expect(changed.secretSettingsSet).toEqual(['apiToken', 'password']);
    expect((await row(view.id)).secret_settings).not.toContain('new-secret-value');
    expect(await schema.testConnection(view.id)).toMatchObject({ success: false });
    const activity = (
      await ds.query(`SELECT details FROM activity WHERE connected_system_id = $1 ORDER BY created DESC LIMIT 1`, [view.id])
    )[0];
    expect(activity.details).toEqual({ changed: ['settings'], secretSettingsChanged: ['password'] });
    expect(JSON.stringify(activity)).not.toContain('new-secret-value');

    const cleared = await systems.update(view.id, { settings: { apiToken: null } }, initiator);
    expect(cleared.secretSettingsSet).toEqual(['password']);
    expect(Object.keys(JSON.parse((await row(view.id)).secret_settings))).toEqual(['password']);
  });

  it('refuses a missing or cleared required secret, naming settings.<name>', async () => {
    const missing = await systems.create({ name: 'Vault C', connectorType: 'Vault', settings: { host: 'h' } }, initiator).catch((e) => e);
    expect(missing).toBeInstanceOf(DomainError);
    expect(Object.keys(missing.validationErrors)).toEqual(['settings.password']);
    const view = await systems.create({ name: 'Vault D', connectorType: 'Vault', settings: { host: 'h', password: PASSWORD } }, initiator);
    const cleared = await systems.update(view.id, { settings: { password: null } }, initiator).catch((e) => e);
    expect(Object.keys(cleared.validationErrors)).toEqual(['settings.password']);
    const wrongType = await systems.update(view.id, { settings: { password: 12345 } }, initiator).catch((e) => e);
    expect(Object.keys(wrongType.validationErrors)).toEqual(['settings.password']);
    expect((await schema.testConnection(view.id)).success).toBe(true);
  });

  it('removes secret values from connector messages', async () => {
    const view = await systems.create(
      { name: 'Vault E', connectorType: 'Vault', settings: { host: 'h', username: 'bob', password: 'not-the-right-one' } },
      initiator,
    );
    const result = await schema.testConnection(view.id);
    expect(result.success).toBe(false);
    expect(result.message).toBe('Login failed for bob:********@h');
  });

  it('binds each sealed value to its system: a value copied to another system does not open', async () => {
    const a = await systems.create({ name: 'Vault F', connectorType: 'Vault', settings: { host: 'h', password: PASSWORD } }, initiator);
    const b = await systems.create({ name: 'Vault G', connectorType: 'Vault', settings: { host: 'h', password: 'other' } }, initiator);
    await ds.query(
      `UPDATE connected_system SET secret_settings = (SELECT secret_settings FROM connected_system WHERE id = $1) WHERE id = $2`,
      [a.id, b.id],
    );
    const result = await schema.testConnection(b.id);
    expect(result).toMatchObject({ success: false, message: expect.stringMatching(/cannot be decrypted/) });
    const update = await systems.update(b.id, { settings: { host: 'x' } }, initiator).catch((e) => e);
    expect(update).toBeInstanceOf(DomainError);
    expect(update.code).toBe('CONFLICT');
  });
});
