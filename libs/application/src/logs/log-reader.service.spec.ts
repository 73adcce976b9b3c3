import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '@meridian/platform';
import { LogReaderService, ReadStats } from './log-reader.service';

const LEVELS = [
  ['Verbose', 'VRB'],
  ['Debug', 'DBG'],
  ['Information', 'INF'],
  ['Warning', 'WRN'],
  ['Error', 'ERR'],
  ['Fatal', 'FTL'],
] as const;
const SERVICES = ['web', 'worker', 'scheduler'] as const;
const DAY = '2025-03-01';

interface Seed {
  timestamp: string;
  level: string;
  levelShort: string;
  service: string;
  message: string;
  correlationId?: string;
  exception?: string;
  properties?: Record<string, unknown>;
}

const toLine = (e: Seed) =>
  JSON.stringify({
    timestamp: e.timestamp,
    level: e.level,
    levelShort: e.levelShort,
    service: e.service,
    message: e.message,
    correlationId: e.correlationId,
    exception: e.exception,
    properties: e.properties,
  });

/** 60 entries of one day, interleaved over the three services, oldest first. */
function seedDay(day: string): Seed[] {
  const start = Date.parse(`${day}T00:00:00Z`);
  return Array.from({ length: 60 }, (_, i) => {
    const [level, levelShort] = LEVELS[i % 6];
    const service = SERVICES[(i * 7) % 3];
    return {
      timestamp: new Date(start + i * 61_000).toISOString(),
      level,
      levelShort,
      service,
      message: `${day} event ${i}`,
      ...(i % 5 === 0 ? { correlationId: `corr-${i}` } : {}),
      ...(i % 6 === 4 ? { exception: `Error: failure ${i}\n    at Worker.run (runner.ts:1:1)` } : {}),
      ...(i % 4 === 0 ? { properties: { index: i } } : {}),
    };
  });
}

/** Writes a service's seeds of one day over `rolls` files, oldest lines in the unsuffixed file (the library's order). */
function writeRolled(dir: string, seeds: Seed[], service: string, day: string, rolls: number): void {
  const mine = seeds.filter((s) => s.service === service);
  const per = Math.ceil(mine.length / rolls);
  for (let r = 0; r < rolls; r++) {
    const name = `${service}-${day}.log${r === 0 ? '' : `.${r}`}`;
    writeFileSync(
      join(dir, name),
      mine
        .slice(r * per, (r + 1) * per)
        .map((s) => `${toLine(s)}\n`)
        .join(''),
    );
  }
}

const view = (s: Seed) => ({
  timestamp: s.timestamp,
  level: s.level,
  levelShort: s.levelShort,
  message: s.message,
  exception: s.exception ?? null,
  service: s.service,
  properties: s.correlationId || s.properties ? { ...(s.correlationId ? { correlationId: s.correlationId } : {}), ...s.properties } : null,
});

describe('LogReaderService', () => {
  let dir: string;
  let reader: LogReaderService;
  let seeds: Seed[];
  const newestFirst = () => [...seeds].reverse();

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'meridian-logreader-'));
    reader = new LogReaderService({ logDir: dir } as AppConfig);
    seeds = seedDay(DAY);
    writeRolled(dir, seeds, 'web', DAY, 3);
    writeRolled(dir, seeds, 'worker', DAY, 1);
    writeRolled(dir, seeds, 'scheduler', DAY, 2);
    const previous = seedDay('2025-02-28');
    for (const service of SERVICES) writeRolled(dir, previous, service, '2025-02-28', 1);
    // Things that are not log files of ours.
    writeFileSync(join(dir, '.web-audit.json'), '{"files":[]}');
    writeFileSync(join(dir, 'web-2025-03-01.txt'), 'not a log');
    writeFileSync(join(dir, 'db-2025-03-01.log'), toLine(seeds[0]));
    writeFileSync(join(dir, 'web-2025-02-30.log'), toLine(seeds[0]));
    symlinkSync(join(dir, `web-${DAY}.log`), join(dir, 'web-2025-03-02.log'));
    mkdirSync(join(dir, 'worker-2025-03-03.log'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('listFiles', () => {
    it('lists the log files newest day first, then by service, then newest roll first', async () => {
      const files = await reader.listFiles();
      expect(files.map((f) => f.fileName)).toEqual([
        'scheduler-2025-03-01.log.1',
        'scheduler-2025-03-01.log',
        'web-2025-03-01.log.2',
        'web-2025-03-01.log.1',
        'web-2025-03-01.log',
        'worker-2025-03-01.log',
        'scheduler-2025-02-28.log',
        'web-2025-02-28.log',
        'worker-2025-02-28.log',
      ]);
      const web = files.find((f) => f.fileName === 'web-2025-03-01.log.1')!;
      expect(web).toEqual({
        fileName: 'web-2025-03-01.log.1',
        service: 'web',
        date: '2025-03-01T00:00:00.000Z',
        sizeBytes: expect.any(Number),
        sizeFormatted: expect.stringMatching(/^\d+(\.\d)? (B|KB)$/),
      });
      expect(web.sizeBytes).toBeGreaterThan(0);
    });

    it('formats sizes in binary units', async () => {
      const sized = mkdtempSync(join(tmpdir(), 'meridian-logsizes-'));
      try {
        writeFileSync(join(sized, 'web-2025-01-01.log'), Buffer.alloc(512));
        writeFileSync(join(sized, 'web-2025-01-02.log'), Buffer.alloc(1536));
        writeFileSync(join(sized, 'web-2025-01-03.log'), Buffer.alloc(Math.round(12.3 * 1024 * 1024)));
        const files = await new LogReaderService({ logDir: sized } as AppConfig).listFiles();
        expect(files.map((f) => [f.sizeBytes, f.sizeFormatted])).toEqual([
          [12897485, '12.3 MB'],
          [1536, '1.5 KB'],
          [512, '512 B'],
        ]);
      } finally {
        rmSync(sized, { recursive: true, force: true });
      }
    });
  });

  it('lists levels in ascending severity and the services', () => {
    expect(reader.levels()).toEqual(LEVELS.map(([name, short]) => ({ name, short })));
    expect(reader.services()).toEqual(['web', 'worker', 'scheduler']);
  });

  describe('read', () => {
    it('returns the whole day newest first across services and rolled files', async () => {
      expect(await reader.read({ date: DAY })).toEqual(newestFirst().map(view));
    });

    it('keeps the correlation id in properties and null for absent exception and properties', async () => {
      const entries = await reader.read({ date: DAY, search: 'event 15' });
      expect(entries).toEqual([
        {
          timestamp: seeds[15].timestamp,
          level: 'Warning',
          levelShort: 'WRN',
          message: `${DAY} event 15`,
          exception: null,
          service: seeds[15].service,
          properties: { correlationId: 'corr-15' },
        },
      ]);
      const [plain] = await reader.read({ date: DAY, search: 'event 1', limit: 1, offset: 0, levels: ['Debug'] });
      expect(plain.message).toBe(`${DAY} event 19`);
      expect(plain.properties).toBeNull();
      expect(plain.exception).toBeNull();
    });

    it('filters by service', async () => {
      for (const service of SERVICES) {
        expect(await reader.read({ date: DAY, service })).toEqual(
          newestFirst()
            .filter((s) => s.service === service)
            .map(view),
        );
      }
    });

    it('filters by levels given as names or short forms, in any case', async () => {
      const expected = newestFirst()
        .filter((s) => s.level === 'Error' || s.level === 'Warning')
        .map(view);
      expect(await reader.read({ date: DAY, levels: ['Error', 'Warning'] })).toEqual(expected);
      expect(await reader.read({ date: DAY, levels: ['err', 'WRN'] })).toEqual(expected);
      expect(await reader.read({ date: DAY, levels: [] })).toHaveLength(60);
    });

    it('searches message and exception case-insensitively', async () => {
      expect((await reader.read({ date: DAY, search: 'EVENT 4' })).map((e) => e.message)).toEqual(
        newestFirst()
          .filter((s) => / event 4\d?$/.test(s.message))
          .map((s) => s.message),
      );
      const failures = await reader.read({ date: DAY, search: 'worker.RUN' });
      expect(failures.map((e) => e.message)).toEqual(
        newestFirst()
          .filter((s) => s.exception)
          .map((s) => s.message),
      );
      expect(failures.length).toBeGreaterThan(0);
      expect(await reader.read({ date: DAY, search: 'no such text' })).toEqual([]);
    });

    it('combines service, levels and search', async () => {
      const expected = newestFirst()
        .filter((s) => s.service === 'worker' && s.level === 'Error' && s.exception)
        .map(view);
      expect(expected.length).toBeGreaterThan(0);
      expect(await reader.read({ date: DAY, service: 'worker', levels: ['ERR'], search: 'failure' })).toEqual(expected);
      expect(await reader.read({ date: DAY, service: 'web', levels: ['ERR'] })).toEqual([]);
    });

    it('selects the UTC day of a date or datetime, and today by default', async () => {
      const previous = (await reader.read({ date: '2025-02-28' })).map((e) => e.message);
      expect(previous).toHaveLength(60);
      expect(previous.every((m) => m.startsWith('2025-02-28 '))).toBe(true);
      expect((await reader.read({ date: '2025-03-01T01:30:00+02:00' })).map((e) => e.message)).toEqual(previous);
      expect((await reader.read({ date: '2025-02-28T23:30:00-02:00', limit: 1 }))[0].message).toBe(`${DAY} event 59`);
      expect((await reader.read({ date: new Date(`${DAY}T12:00:00Z`), limit: 1 }))[0].message).toBe(`${DAY} event 59`);
      expect(await reader.read({ date: '2025-03-04' })).toEqual([]);
      expect(await reader.read()).toEqual([]); // nothing seeded for today
    });

    it('pages with limit and offset; pages join up to the full list', async () => {
      const all = await reader.read({ date: DAY, limit: 5000 });
      const pages: unknown[] = [];
      for (let offset = 0; offset < 70; offset += 7) pages.push(...(await reader.read({ date: DAY, limit: 7, offset })));
      expect(pages).toEqual(all);
      expect(await reader.read({ date: DAY, limit: 3, offset: 10 })).toEqual(all.slice(10, 13));
      expect(await reader.read({ date: DAY, offset: 60 })).toEqual([]);
      expect(await reader.read({ date: DAY, limit: 1 })).toEqual([view(seeds[59])]);
    });
  });

  describe('malformed and partial lines', () => {
    let odd: string;
    let oddReader: LogReaderService;
    beforeAll(() => {
      odd = mkdtempSync(join(tmpdir(), 'meridian-logodd-'));
      oddReader = new LogReaderService({ logDir: odd } as AppConfig);
      const at = (s: number) => `${DAY}T10:00:0${s}.000Z`;
      writeFileSync(
        join(odd, `web-${DAY}.log`),
        [
          JSON.stringify({ timestamp: at(1), level: 'Information', message: 'good one' }),
          'plain text from somewhere else',
          '',
          '[1,2,3]',
          JSON.stringify({ level: 'Error', message: 'no timestamp' }),
          JSON.stringify({ timestamp: 'not a time', message: 'bad timestamp' }),
          `${JSON.stringify({ timestamp: at(2), level: 'wrn', message: { structured: true } })}\r`,
          JSON.stringify({ timestamp: at(3), level: 'Shouting', message: 'unknown level', properties: [1] }),
          JSON.stringify({ timestamp: at(4), levelShort: 'ERR', message: 'short form only', exception: '' }),
        ].join('\n') + '\n',
      );
      // A line still being written: no closing brace, no newline.
      appendFileSync(join(odd, `web-${DAY}.log`), `{"timestamp":"${at(5)}","level":"Error","message":"half wri`);
    });
    afterAll(() => rmSync(odd, { recursive: true, force: true }));

    it('skips lines that are not JSON objects with a timestamp, and normalises the rest', async () => {
      const entries = await oddReader.read({ date: DAY });
      expect(entries.map((e) => [e.message, e.level, e.levelShort, e.exception, e.properties])).toEqual([
        ['short form only', 'Error', 'ERR', null, null],
        ['unknown level', 'Information', 'INF', null, null],
        ['{"structured":true}', 'Warning', 'WRN', null, null],
        ['good one', 'Information', 'INF', null, null],
      ]);
      expect(entries.every((e) => e.service === 'web')).toBe(true);
      // Filtering by level gives the same answer whether or not the line starts the way the logger writes it.
      expect((await oddReader.read({ date: DAY, levels: ['Error'] })).map((e) => e.message)).toEqual(['short form only']);
      expect((await oddReader.read({ date: DAY, levels: ['Warning'] })).map((e) => e.message)).toEqual(['{"structured":true}']);
      expect((await oddReader.read({ date: DAY, levels: ['Information'] })).map((e) => e.message)).toEqual(['unknown level', 'good one']);
    });
  });

  it('returns empty arrays when the log directory does not exist', async () => {
    const missing = new LogReaderService({ logDir: join(dir, 'does', 'not', 'exist') } as AppConfig);
    expect(await missing.listFiles()).toEqual([]);
    expect(await missing.read({ date: DAY })).toEqual([]);
  });

  describe('a large day', () => {
    const LINES = 200_000;
    let big: string;
    let bigReader: LogReaderService;
    let fileBytes = 0;
    const start = Date.parse(`${DAY}T00:00:00Z`);
    const message = (i: number) => `request ${i} handled${i === 7 ? ' RARE-NEEDLE' : ''}`;

    beforeAll(() => {
      big = mkdtempSync(join(tmpdir(), 'meridian-logbig-'));
      bigReader = new LogReaderService({ logDir: big } as AppConfig);
      const path = join(big, `web-${DAY}.log`);
      writeFileSync(path, '');
      for (let from = 0; from < LINES; from += 10_000) {
        let text = '';
        for (let i = from; i < from + 10_000; i++) {
          const [level, levelShort] = LEVELS[i % 6];
          text += `${JSON.stringify({ timestamp: new Date(start + i * 100).toISOString(), level, levelShort, service: 'web', message: message(i), correlationId: `c-${i}`, properties: { path: '/api/v1/things', status: 200 } })}\n`;
        }
        appendFileSync(path, text);
        fileBytes += Buffer.byteLength(text);
      }
    });
    afterAll(() => rmSync(big, { recursive: true, force: true }));

    const stats = (): ReadStats => ({ filesOpened: 0, bytesRead: 0 });

    it('returns the newest entries reading only the end of the file', async () => {
      const read = stats();
      const entries = await bigReader.read({ date: DAY, limit: 10 }, read);
      expect(entries.map((e) => e.message)).toEqual(Array.from({ length: 10 }, (_, k) => message(LINES - 1 - k)));
      expect(fileBytes).toBeGreaterThan(25 * 1024 * 1024);
      expect(read.bytesRead).toBeLessThanOrEqual(64 * 1024);
    });

    it('skips offset entries while streaming and stops after limit', async () => {
      const read = stats();
      const entries = await bigReader.read({ date: DAY, limit: 5, offset: 100_000 }, read);
      expect(entries.map((e) => e.properties?.correlationId)).toEqual([99_999, 99_998, 99_997, 99_996, 99_995].map((i) => `c-${i}`));
      expect(read.bytesRead).toBeGreaterThan(fileBytes * 0.45);
      expect(read.bytesRead).toBeLessThan(fileBytes * 0.55);
    });

    it('pages at the maximum limit deep in the file', async () => {
      const entries = await bigReader.read({ date: DAY, limit: 5000, offset: 150_000 });
      expect(entries).toHaveLength(5000);
      expect(entries[0].message).toBe(message(49_999));
      expect(entries[4999].message).toBe(message(45_000));
    });

    it('finds a rare match at the start of the file and filters levels through the whole file', async () => {
      expect((await bigReader.read({ date: DAY, search: 'rare-needle' })).map((e) => e.message)).toEqual([message(7)]);
      const fatalCount = Math.floor((LINES - 6) / 6) + 1; // i % 6 === 5
      const fatal = await bigReader.read({ date: DAY, levels: ['FTL'], limit: 3, offset: fatalCount - 3 });
      expect(fatal.map((e) => e.message)).toEqual([message(17), message(11), message(5)]);
      expect(await bigReader.read({ date: DAY, offset: LINES })).toEqual([]);
    });
  });
});
