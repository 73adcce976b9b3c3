import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWithCorrelationId } from '@meridian/platform';
import { waitFor } from '@meridian/testing';
import { startWebApp, WebHarness } from './harness';

const PAST_DAY = '2025-01-15';
const SHORT: Record<string, string> = { Verbose: 'VRB', Debug: 'DBG', Information: 'INF', Warning: 'WRN', Error: 'ERR', Fatal: 'FTL' };

interface Entry {
  timestamp: string;
  level: string;
  levelShort: string;
  message: string;
  exception: string | null;
  service: string;
  properties: Record<string, unknown> | null;
}

const line = (service: string, timestamp: string, level: string, message: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ timestamp, level, levelShort: SHORT[level], service, message, ...extra })}\n`;

describe('logs API', () => {
  let h: WebHarness;
  const tag = `t${randomBytes(4).toString('hex')}`;
  const today = new Date().toISOString().slice(0, 10);
  // Seeded lines of today sit just before the suite started (never before today's midnight), k ms after
  // one base taken once: their order is k's, however much time passes while they are written.
  const startOfToday = Date.parse(`${today}T00:00:00.000Z`);
  const seedBase = Math.max(startOfToday, Date.now() - 60_000);
  const seededAt = (k: number) => new Date(seedBase + k).toISOString();

  const get = (path: string) => h.http.get(path).set('X-Api-Key', h.adminKey);
  const entries = async (query: string): Promise<Entry[]> => (await get(`/api/v1/logs?${query}`).expect(200)).body;

  beforeAll(async () => {
    h = await startWebApp();
    const dir = h.env.logDir;
    // The worker's day in two rolled files (the unsuffixed one is older) and the scheduler's.
    writeFileSync(
      join(dir, `worker-${today}.log`),
      [
        line('worker', seededAt(1), 'Information', `${tag} job started`, { properties: { jobId: 'j1' }, correlationId: 'job-j1' }),
        line('worker', seededAt(3), 'Warning', `${tag} job slow`),
      ].join(''),
    );
    writeFileSync(
      join(dir, `worker-${today}.log.1`),
      [line('worker', seededAt(5), 'Error', `${tag} job failed`, { exception: 'Error: LDAP timeout\n    at bind (ldap.ts:1:1)' })].join(''),
    );
    writeFileSync(
      join(dir, `scheduler-${today}.log`),
      [
        line('scheduler', seededAt(2), 'Debug', `${tag} tick`),
        line('scheduler', seededAt(4), 'Information', `${tag} schedule due`),
        'not json at all\n',
      ].join(''),
    );
    writeFileSync(
      join(dir, `web-${PAST_DAY}.log`),
      Array.from({ length: 30 }, (_, i) =>
        line('web', `${PAST_DAY}T10:00:${String(i).padStart(2, '0')}.000Z`, i % 2 ? 'Information' : 'Debug', `${tag} old request ${i}`),
      ).join(''),
    );
    writeFileSync(
      join(dir, `scheduler-${PAST_DAY}.log`),
      line('scheduler', `${PAST_DAY}T23:59:59.000Z`, 'Fatal', `${tag} old scheduler crash`),
    );

    // And lines the web app's own logger writes, inside a correlation scope as a request would.
    runWithCorrelationId('e2e-correlation', () => {
      h.logger.log({ level: 'warning', message: `${tag} needle from web`, connectedSystemId: 3 });
      h.logger.log({ level: 'error', message: `${tag} Needle failed`, error: new Error('web boom') });
    });
    await waitFor(async () => (await entries(`search=${tag}%20needle`)).length === 2);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('requires an API key on every logs endpoint', async () => {
    for (const path of ['/api/v1/logs', '/api/v1/logs/files', '/api/v1/logs/levels', '/api/v1/logs/services']) {
      const res = await h.http.get(path).expect(401);
      expect(res.body.code).toBe('UNAUTHORISED');
    }
  });

  it('lists the levels in ascending severity and the services', async () => {
    expect((await get('/api/v1/logs/levels').expect(200)).body).toEqual([
      { name: 'Verbose', short: 'VRB' },
      { name: 'Debug', short: 'DBG' },
      { name: 'Information', short: 'INF' },
      { name: 'Warning', short: 'WRN' },
      { name: 'Error', short: 'ERR' },
      { name: 'Fatal', short: 'FTL' },
    ]);
    expect((await get('/api/v1/logs/services').expect(200)).body).toEqual(['web', 'worker', 'scheduler']);
  });

  it('lists the log files newest day first, including the live web file', async () => {
    const files: { fileName: string; service: string; date: string; sizeBytes: number; sizeFormatted: string }[] = (
      await get('/api/v1/logs/files').expect(200)
    ).body;
    expect(files.map((f) => f.fileName)).toEqual([
      `scheduler-${today}.log`,
      `web-${today}.log`,
      `worker-${today}.log.1`,
      `worker-${today}.log`,
      `scheduler-${PAST_DAY}.log`,
      `web-${PAST_DAY}.log`,
    ]);
    const web = files.find((f) => f.fileName === `web-${today}.log`)!;
    expect(web).toMatchObject({ service: 'web', date: `${today}T00:00:00.000Z` });
    expect(web.sizeBytes).toBeGreaterThan(0);
    expect(web.sizeFormatted).toMatch(/^\d+(\.\d)? (B|KB|MB)$/);
  });

  it('returns entries written through the logger with the spec fields', async () => {
    const [failed, warned] = await entries(`search=${tag}%20NEEDLE`);
    expect(failed).toMatchObject({
      level: 'Error',
      levelShort: 'ERR',
      message: `${tag} Needle failed`,
      service: 'web',
      properties: { correlationId: 'e2e-correlation' },
    });
    expect(failed.exception).toMatch(/^Error: web boom/);
    expect(warned).toEqual({
      timestamp: expect.any(String),
      level: 'Warning',
      levelShort: 'WRN',
      message: `${tag} needle from web`,
      exception: null,
      service: 'web',
      properties: { correlationId: 'e2e-correlation', connectedSystemId: 3 },
    });
    expect(Date.parse(failed.timestamp)).toBeGreaterThanOrEqual(Date.parse(warned.timestamp));
  });

  it('shows the correlation id of the request that wrote a line', async () => {
    await get('/api/v1/logs/levels').set('X-Correlation-Id', `${tag}-request`).expect(200);
    const logged = await waitFor(async () =>
      (await entries('levels=Debug&service=web&search=GET%20%2Fapi%2Fv1%2Flogs%2Flevels')).find(
        (e) => e.properties?.correlationId === `${tag}-request`,
      ),
    );
    expect(logged).toMatchObject({ level: 'Debug', message: 'GET /api/v1/logs/levels 200', service: 'web' });
  });

  it('merges the services and rolled files of today newest first', async () => {
    const mine = await entries(`search=${tag}`);
    expect(mine.map((e) => `${e.service}: ${e.message.replace(`${tag} `, '')}`)).toEqual([
      'web: Needle failed',
      'web: needle from web',
      'worker: job failed',
      'scheduler: schedule due',
      'worker: job slow',
      'scheduler: tick',
      'worker: job started',
    ]);
    expect(mine.find((e) => e.message.endsWith('job started'))!.properties).toEqual({ correlationId: 'job-j1', jobId: 'j1' });
    const all = await entries('limit=5000');
    const times = all.map((e) => Date.parse(e.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('filters by service, repeated or single levels, and search', async () => {
    expect((await entries(`service=worker&search=${tag}`)).map((e) => e.message)).toEqual([
      `${tag} job failed`,
      `${tag} job slow`,
      `${tag} job started`,
    ]);
    expect((await entries(`levels=Error&levels=Warning&search=${tag}`)).map((e) => e.levelShort)).toEqual(['ERR', 'WRN', 'ERR', 'WRN']);
    expect((await entries(`levels=err&search=${tag}`)).map((e) => e.message)).toEqual([`${tag} Needle failed`, `${tag} job failed`]);
    expect((await entries(`levels=DBG,INF&service=scheduler&search=${tag}`)).map((e) => e.message)).toEqual([
      `${tag} schedule due`,
      `${tag} tick`,
    ]);
    expect((await entries(`search=ldap%20TIMEOUT`)).map((e) => e.message)).toEqual([`${tag} job failed`]);
    expect(await entries(`search=${tag}%20nothing%20like%20this`)).toEqual([]);
  });

  it('reads another UTC day given as a date or a datetime', async () => {
    const old = await entries(`date=${PAST_DAY}&search=${tag}&limit=3`);
    expect(old.map((e) => e.message)).toEqual([`${tag} old scheduler crash`, `${tag} old request 29`, `${tag} old request 28`]);
    const viaOffset = await entries(`date=${PAST_DAY}T23:30:00-05:00&search=${tag}`);
    expect(viaOffset).toEqual([]); // that instant is already the 16th in UTC
    const viaUtc = await entries(`date=${PAST_DAY}T08:00:00Z&service=web&levels=Information`);
    expect(viaUtc).toHaveLength(15);
    expect(await entries('date=2024-02-29')).toEqual([]);
  });

  it('pages with limit and offset', async () => {
    const all = await entries(`date=${PAST_DAY}&service=web`);
    expect(all).toHaveLength(30);
    const pages = [
      ...(await entries(`date=${PAST_DAY}&service=web&limit=12`)),
      ...(await entries(`date=${PAST_DAY}&service=web&limit=12&offset=12`)),
      ...(await entries(`date=${PAST_DAY}&service=web&limit=12&offset=24`)),
    ];
    expect(pages).toEqual(all);
    expect(await entries(`date=${PAST_DAY}&service=web&offset=30`)).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=5001', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=1.5', 'limit'],
    ['offset=-1', 'offset'],
    ['service=db', 'service'],
    ['service=web&service=worker', 'service'],
    ['levels=Loud', 'levels'],
    ['levels=Error&levels=Loud', 'levels'],
    ['date=yesterday', 'date'],
    ['date=2025-02-30', 'date'],
    ['date=2025-13-01', 'date'],
    ['date=2025-03-01T25:00:00Z', 'date'],
    ['date=2025-W09', 'date'],
    ['search=<201 characters>', 'search'],
    ['search=a&search=b', 'search'],
    ['page=2', 'page'],
  ])('rejects %s with a VALIDATION_ERROR naming %s', async (query, field) => {
    const res = await get(`/api/v1/logs?${query.replace('<201 characters>', 'x'.repeat(201))}`).expect(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(res.body.validationErrors)).toEqual([field]);
  });

  it('documents the endpoints in OpenAPI', async () => {
    const doc = (await h.http.get('/api/openapi.json').expect(200)).body;
    const list = doc.paths['/api/v1/logs'].get;
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['date', 'levels', 'limit', 'offset', 'search', 'service']);
    expect(list.parameters.find((p: { name: string }) => p.name === 'levels').schema.type).toBe('array');
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    for (const path of ['/api/v1/logs/files', '/api/v1/logs/levels', '/api/v1/logs/services'])
      expect(doc.paths[path].get.responses['200']).toBeDefined();
    expect(Object.keys(doc.components.schemas.LogEntryDto.properties).sort()).toEqual([
      'exception',
      'level',
      'levelShort',
      'message',
      'properties',
      'service',
      'timestamp',
    ]);
  });
});
