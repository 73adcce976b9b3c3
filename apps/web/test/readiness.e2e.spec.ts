import rootPackage from '../../../package.json';
import { dataSourceOptions, MIGRATIONS } from '@meridian/persistence';
import { createServiceLogger, loadConfig } from '@meridian/platform';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createWebApp } from '../src/bootstrap';
import { createServer, Server } from 'node:net';
import { checkResponsesAgainstDocument, startWebApp, WebHarness } from './harness';

async function admin(url: string, sql: string): Promise<void> {
  const u = new URL(url);
  u.pathname = '/postgres';
  const c = new Client({ connectionString: u.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('readiness', () => {
  describe('with every dependency up', () => {
    let h: WebHarness;
    beforeAll(async () => {
      h = await startWebApp();
    });
    afterAll(async () => {
      await h?.close();
    });

    it('is ready, alive and healthy, and reports the product version', async () => {
      const ready = await h.http.get('/api/v1/health/ready').expect(200);
      expect(ready.body).toMatchObject({
        status: 'ready',
        reasons: [],
        checks: { database: 'ok', migrations: 'ok', redis: 'ok', maintenance: 'ok' },
      });
      expect((await h.http.get('/api/v1/health/live').expect(200)).body.status).toBe('alive');
      const version = await h.http.get('/api/v1/health/version').expect(200);
      expect(version.body).toEqual({ product: 'Meridian', version: rootPackage.version });
      expect(Date.parse((await h.http.get('/api/v1/health').expect(200)).body.timestamp)).not.toBeNaN();
    });

    it('answers not_ready with a reason when the database stops accepting connections, and recovers', async () => {
      await admin(h.db.url, `ALTER DATABASE "${h.db.name}" ALLOW_CONNECTIONS false`);
      await admin(
        h.db.url,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${h.db.name}' AND pid <> pg_backend_pid()`,
      );
      try {
        const res = await h.http.get('/api/v1/health/ready').expect(503);
        expect(res.body.status).toBe('not_ready');
        expect(res.body.reasons.join(' ')).toMatch(/database unreachable/);
        // Liveness does not depend on the database.
        await h.http.get('/api/v1/health/live').expect(200);
      } finally {
        await admin(h.db.url, `ALTER DATABASE "${h.db.name}" ALLOW_CONNECTIONS true`);
      }
      await h.http.get('/api/v1/health/ready').expect(200);
    });
  });

  it('answers not_ready when Redis is unreachable', async () => {
    // A port that accepts TCP but never answers like Redis would is worse than a closed one; use a closed port.
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    await new Promise<void>((r) => blocker.close(() => r()));
    const h = await startWebApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      const res = await h.http.get('/api/v1/health/ready').expect(503);
      expect(res.body.checks.redis).toBe('failed');
      expect(res.body.reasons.join(' ')).toMatch(/redis unreachable/);
      expect(res.body.checks.database).toBe('ok');
    } finally {
      await h.close();
    }
  });

  it('answers not_ready while migrations are pending', async () => {
    const h = await startWebApp({}, { highRateLimits: true });
    try {
      await h.app.close();
      const ds = await new DataSource(dataSourceOptions(h.db.url)).initialize();
      await ds.undoLastMigration();
      await ds.destroy();
      const config = loadConfig('web', h.env.env);
      const app = await createWebApp(
        config,
        createServiceLogger({ service: 'web', logDir: config.logDir, level: 'Fatal', console: false }),
      );
      const openApi = await checkResponsesAgainstDocument(app);
      try {
        const res = await request(app.getHttpServer()).get('/api/v1/health/ready').expect(503);
        expect(res.body.checks.migrations).toBe('failed');
        expect(res.body.reasons.join(' ')).toContain(`migrations pending: ${MIGRATIONS[MIGRATIONS.length - 1].name}`);
      } finally {
        await app.close();
      }
      openApi.assertConforms();
    } finally {
      await h.env.cleanup();
      await h.db.drop();
    }
  });
});
