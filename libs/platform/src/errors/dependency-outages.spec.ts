import { Dependency } from '@meridian/domain';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeLogger, createServiceLogger, Logger } from '../logging/logger';
import { DependencyOutages } from './dependency-outages';

describe('DependencyOutages', () => {
  let dir: string;
  let logger: Logger;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'meridian-outages-'));
    logger = createServiceLogger({ service: 'worker', logDir: dir, level: 'Debug', console: false });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function entries(): Promise<Record<string, any>[]> {
    await closeLogger(logger);
    return readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
      .map((l) => JSON.parse(l));
  }

  it('logs one warning when an outage starts, nothing while it lasts, one information line when it ends', async () => {
    const outages = DependencyOutages.of(logger);
    expect(outages.unavailable(Dependency.Database, 'connect ECONNREFUSED 127.0.0.1:5432', 'GET /api/v1/activities')).toBe(true);
    for (let i = 0; i < 20; i++) expect(outages.unavailable(Dependency.Database, 'connect ECONNREFUSED')).toBe(false);
    expect(outages.isUnavailable(Dependency.Database)).toBe(true);
    outages.available(Dependency.Database);
    outages.available(Dependency.Database); // no outage any more: nothing to say
    expect(outages.unavailable(Dependency.Database, 'Connection terminated unexpectedly')).toBe(true); // a new outage

    const lines = await entries();
    expect(lines.map((l) => l.level)).toEqual(['Warning', 'Information', 'Warning']);
    expect(lines[0].message).toBe(
      'The database (PostgreSQL) is unavailable (GET /api/v1/activities): connect ECONNREFUSED 127.0.0.1:5432. ' +
        'Requests that need it answer 503 until it is back; further failures are not logged until then.',
    );
    expect(lines[1].message).toMatch(
      /^The database \(PostgreSQL\) is available again after \d+\.\d s \(21 failure\(s\) during the outage\)\.$/,
    );
    expect(lines[1].properties).toMatchObject({ dependency: 'database', failures: 21 });
    for (const line of lines) expect(line).not.toHaveProperty('exception');
  });

  it('ignores a success that began before the outage was recorded', async () => {
    const outages = DependencyOutages.of(logger);
    const before = Date.now() - 1000;
    outages.unavailable(Dependency.Queue, 'Connection is closed.');
    outages.available(Dependency.Queue, before);
    expect(outages.isUnavailable(Dependency.Queue)).toBe(true);
    outages.available(Dependency.Queue);
    expect(outages.current()).toEqual([]);
    expect((await entries()).map((l) => l.level)).toEqual(['Warning', 'Information']);
  });

  it('lasts until every connection that failed is back, or until a request gets its answer', async () => {
    const outages = DependencyOutages.of(logger);
    outages.unavailable(Dependency.Queue, 'connect ECONNREFUSED', 'queue connection', 'queue:a');
    outages.unavailable(Dependency.Queue, 'connect ECONNREFUSED', 'queue connection', 'queue:b');
    outages.available(Dependency.Queue, Date.now(), 'queue:a');
    expect(outages.isUnavailable(Dependency.Queue)).toBe(true);
    outages.available(Dependency.Queue, Date.now(), 'queue:b');
    expect(outages.isUnavailable(Dependency.Queue)).toBe(false);

    outages.unavailable(Dependency.Database, 'terminating connection due to administrator command.', 'idle pool connection', 'pool');
    outages.available(Dependency.Database); // a request read the database: it is back
    expect(outages.isUnavailable(Dependency.Database)).toBe(false);
    const lines = await entries();
    expect(lines.map((l) => l.level)).toEqual(['Warning', 'Information', 'Warning', 'Information']);
    expect(lines[2].message).toMatch(/: terminating connection due to administrator command\. Requests that need it/);
  });

  it('keeps one record per process logger and per dependency', async () => {
    expect(DependencyOutages.of(logger)).toBe(DependencyOutages.of(logger));
    const outages = DependencyOutages.of(logger);
    outages.unavailable(Dependency.Queue, 'Connection is closed.');
    outages.unavailable(Dependency.Database, 'ECONNREFUSED');
    outages.unavailable(Dependency.IdentityProvider, 'fetch failed');
    expect(outages.current().sort()).toEqual([Dependency.Database, Dependency.IdentityProvider, Dependency.Queue]);
    const lines = await entries();
    expect(lines.map((l) => l.message.split(' is unavailable')[0])).toEqual([
      'The job queue (Redis)',
      'The database (PostgreSQL)',
      'The identity provider',
    ]);
  });
});
