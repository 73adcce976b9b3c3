import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWithCorrelationId } from './correlation';
import { closeLogger, createServiceLogger, LOG_LEVELS, LoggerOptions, NestWinstonLogger, setLoggerLevel } from './logger';

const FILE = /^(web|worker|scheduler)-(\d{4}-\d{2}-\d{2})\.log(?:\.(\d+))?$/;

/** The service's log files oldest first: by day, then roll number (the unsuffixed file is the day's first). */
function logFiles(dir: string, service = 'web'): string[] {
  return readdirSync(dir)
    .map((name) => ({ name, m: FILE.exec(name) }))
    .filter((f) => f.m && f.m[1] === service)
    .sort((a, b) => a.m![2].localeCompare(b.m![2]) || Number(a.m![3] ?? 0) - Number(b.m![3] ?? 0))
    .map((f) => f.name);
}

function readEntries(dir: string, service = 'web'): Record<string, any>[] {
  return logFiles(dir, service).flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  );
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createServiceLogger', () => {
  let dir: string;
  const make = (options: Partial<LoggerOptions> = {}) =>
    createServiceLogger({ service: 'web', logDir: dir, level: 'Verbose', console: false, ...options });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'meridian-logger-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one JSON line per entry with the spec level names, short forms and service', async () => {
    const logger = make();
    for (const level of [...LOG_LEVELS].reverse()) logger.log({ level: level.key, message: `at ${level.name}` });
    await closeLogger(logger);

    const today = new Date().toISOString().slice(0, 10);
    expect(logFiles(dir)).toEqual([`web-${today}.log`]);
    const entries = readEntries(dir);
    expect(entries.map((e) => [e.level, e.levelShort])).toEqual([
      ['Verbose', 'VRB'],
      ['Debug', 'DBG'],
      ['Information', 'INF'],
      ['Warning', 'WRN'],
      ['Error', 'ERR'],
      ['Fatal', 'FTL'],
    ]);
    for (const e of entries) {
      expect(Object.keys(e)).toEqual(['timestamp', 'level', 'levelShort', 'service', 'message']);
      expect(e.service).toBe('web');
      expect(new Date(e.timestamp).toISOString()).toBe(e.timestamp);
      expect(e.message).toBe(`at ${e.level}`);
    }
  });

  it('carries the correlation id of the surrounding context, or an explicit one', async () => {
    const logger = make();
    runWithCorrelationId('corr-123', () => logger.log({ level: 'information', message: 'inside' }));
    logger.log({ level: 'information', message: 'outside' });
    logger.log({ level: 'information', message: 'explicit', correlationId: 'job-7' });
    await closeLogger(logger);

    const byMessage = Object.fromEntries(readEntries(dir).map((e) => [e.message, e]));
    expect(byMessage.inside.correlationId).toBe('corr-123');
    expect(byMessage.outside).not.toHaveProperty('correlationId');
    expect(byMessage.explicit.correlationId).toBe('job-7');
    expect(byMessage.explicit).not.toHaveProperty('properties');
  });

  it('turns an error property into the exception and keeps other properties structured', async () => {
    const logger = make();
    logger.log({ level: 'error', message: 'failed', error: new Error('boom'), jobId: 'j1', attempt: 2 });
    logger.log({ level: 'error', message: 'failed as text', error: 'connection refused' });
    logger.log({ level: 'warning', message: 'with code', error: { code: 'E42' } });
    logger.log({ level: 'information', message: 'typed', at: new Date(0), count: BigInt(5) });
    await closeLogger(logger);

    const [withError, withText, withCode, typed] = readEntries(dir);
    expect(withError.exception).toMatch(/^Error: boom\n\s+at /);
    expect(withError.properties).toEqual({ jobId: 'j1', attempt: 2 });
    expect(withText.exception).toBe('connection refused');
    expect(withText).not.toHaveProperty('properties');
    expect(withCode).not.toHaveProperty('exception');
    expect(withCode.properties).toEqual({ error: { code: 'E42' } });
    expect(typed.properties).toEqual({ at: '1970-01-01T00:00:00.000Z', count: '5' });
  });

  it('redacts secret-looking properties and inline API keys', async () => {
    const key = `mer_${'A1b2C3d4'.repeat(5)}`;
    const logger = make();
    logger.log({
      level: 'information',
      message: `signed in with ${key}`,
      password: 'hunter2',
      user: { name: 'ann', apiKey: 'x' },
      note: `key ${key}`,
    });
    logger.log({ level: 'error', message: 'failed', error: new Error(`rejected ${key}`) });
    await closeLogger(logger);

    const text = logFiles(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('');
    expect(text).not.toContain(key);
    expect(text).not.toContain('hunter2');
    const [first, second] = readEntries(dir);
    expect(first.message).toBe('signed in with [redacted]');
    expect(first.properties).toEqual({ password: '[redacted]', user: { name: 'ann', apiKey: '[redacted]' }, note: 'key [redacted]' });
    expect(second.exception).toMatch(/^Error: rejected \[redacted\]/);
  });

  it('never throws into the caller on properties JSON cannot hold', async () => {
    const logger = make();
    const cyclic: Record<string, unknown> = { name: 'root' };
    cyclic.self = cyclic;
    expect(() => logger.log({ level: 'information', message: 'cyclic', cyclic })).not.toThrow();
    expect(() => logger.log({ level: 'information', message: { nested: true } as unknown as string })).not.toThrow();
    await closeLogger(logger);

    const [cyclicEntry, objectMessage] = readEntries(dir);
    expect(cyclicEntry.properties.cyclic.name).toBe('root');
    expect(JSON.stringify(cyclicEntry)).toContain('[truncated]');
    expect(objectMessage.message).toBe('{"nested":true}');
  });

  it('rolls by size into .1, .2… files, oldest unsuffixed, without losing a line', async () => {
    const logger = make({ maxSize: '10k' });
    const total = 1000;
    for (let i = 0; i < total; i++) logger.log({ level: 'information', message: `line ${String(i).padStart(5, '0')} ${'x'.repeat(60)}` });
    await closeLogger(logger);

    const files = logFiles(dir);
    expect(files.length).toBeGreaterThan(5);
    expect(files[0]).toMatch(/^web-\d{4}-\d{2}-\d{2}\.log$/);
    files.slice(1).forEach((f, i) => expect(f).toMatch(new RegExp(`\\.log\\.${i + 1}$`)));
    for (const f of files.slice(0, -1)) expect(statSync(join(dir, f)).size).toBeLessThan(10 * 1024 + 200);
    // Read in roll order, the lines come back exactly in the order they were written.
    const messages = readEntries(dir).map((e) => Number(e.message.split(' ')[1]));
    expect(messages).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(readdirSync(dir)).toContain('.web-audit.json');
  });

  it('keeps at most maxFiles files, deleting the oldest', async () => {
    const logger = make({ maxSize: '10k', maxFiles: 3 });
    let n = 0;
    // About a third of a file per batch: each file is open well before the rotation that deletes it.
    for (let batch = 0; batch < 30; batch++) {
      for (let i = 0; i < 30; i++) logger.log({ level: 'information', message: `line ${n++} ${'y'.repeat(60)}` });
      await pause(10);
    }
    await closeLogger(logger);

    const files = logFiles(dir);
    expect(files).toHaveLength(3);
    expect(files[0]).toMatch(/\.log\.\d+$/);
    const messages = readEntries(dir).map((e) => Number(e.message.split(' ')[1]));
    expect(messages[messages.length - 1]).toBe(n - 1);
    expect(messages[0]).toBeGreaterThan(0);
  });

  it('honours setLoggerLevel on a running logger', async () => {
    const logger = make({ level: 'Information' });
    logger.log({ level: 'debug', message: 'debug hidden' });
    logger.log({ level: 'information', message: 'info shown' });
    setLoggerLevel(logger, 'Debug');
    logger.log({ level: 'debug', message: 'debug shown' });
    setLoggerLevel(logger, 'Error');
    logger.log({ level: 'warning', message: 'warning hidden' });
    logger.log({ level: 'error', message: 'error shown' });
    await closeLogger(logger);

    expect(readEntries(dir).map((e) => e.message)).toEqual(['info shown', 'debug shown', 'error shown']);
  });

  it('routes Nest framework messages with their context and stack', async () => {
    const logger = make();
    const nest = new NestWinstonLogger(logger);
    nest.log('started', 'NestApplication');
    nest.error('crashed', 'Error: crashed\n    at x', 'ExceptionsHandler');
    nest.warn('careful');
    await closeLogger(logger);

    const [started, crashed, careful] = readEntries(dir);
    expect(started).toMatchObject({ level: 'Information', message: 'started', properties: { context: 'NestApplication' } });
    expect(crashed).toMatchObject({ level: 'Error', exception: 'Error: crashed\n    at x', properties: { context: 'ExceptionsHandler' } });
    expect(careful).toMatchObject({ level: 'Warning', message: 'careful' });
  });

  it('has every line on disk when closeLogger resolves', async () => {
    const logger = make();
    for (let i = 0; i < 5000; i++) logger.log({ level: 'information', message: `flush ${i} ${'z'.repeat(100)}` });
    await closeLogger(logger);

    expect(readEntries(dir)).toHaveLength(5000);
  });
});
