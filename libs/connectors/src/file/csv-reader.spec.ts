import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CsvEvent, eventsOf, openCsv, readCsv, readCsvBatches } from './csv-reader';

describe('readCsv', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'csv-reader-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const read = async (bytes: Buffer, encoding: 'utf8' | 'latin1', highWaterMark?: number) => {
    const file = join(root, 'f.csv');
    await writeFile(file, bytes);
    const out: CsvEvent[] = [];
    for await (const event of readCsv(file, { delimiter: ',', quote: '"', encoding }, { highWaterMark })) out.push(event);
    return out.map((e) => (e.kind === 'record' ? [e.line, ...e.values] : [e.line, e.code]));
  };
  const text = 'id,name\n1,"Zoë, ""Z"""\n\n,\n2,Ærø\n';
  const expected = [
    [1, 'id', 'name'],
    [2, '1', 'Zoë, "Z"'],
    [5, '2', 'Ærø'],
  ];

  it.each([1, 2, 3, 5, 64 * 1024])(
    'decodes and parses the same, whatever the read size (%i bytes), multi-byte characters cut or not',
    async (size) => {
      expect(await read(Buffer.from(text), 'utf8', size)).toEqual(expected);
      expect(await read(Buffer.from(text, 'latin1'), 'latin1', size)).toEqual(expected);
      // A byte order mark is skipped and decides the encoding, whatever the setting says.
      expect(await read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'latin1', size)).toEqual(expected);
      expect(await read(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), 'utf8', size)).toEqual(expected);
    },
  );

  it('reads a file too short for a byte order mark, and an empty one', async () => {
    expect(await read(Buffer.from('a'), 'utf8')).toEqual([[1, 'a']]);
    expect(await read(Buffer.alloc(0), 'utf8')).toEqual([]);
  });

  it('hands the records out a read at a time, and openCsv the header first with the rest of its read after it', async () => {
    const file = join(root, 'batches.csv');
    const rows = Array.from({ length: 50 }, (_, i) => `${i + 1},name ${i + 1}`);
    await writeFile(file, `id,name\n${rows.join('\n')}\n`);
    const format = { delimiter: ',', quote: '"', encoding: 'utf8' } as const;
    const sizes: number[] = [];
    for await (const batch of readCsvBatches(file, format, { highWaterMark: 256 })) sizes.push(batch.length);
    // 512 bytes in reads of 256: a few batches of many records each, not one per record.
    expect(sizes.length).toBeLessThan(5);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(51);

    const doc = (await openCsv(file, format))!;
    expect(doc.header).toEqual(['id', 'name']);
    const values: string[] = [];
    for await (const event of eventsOf(doc.batches)) if (event.kind === 'record') values.push(event.values[0]);
    expect(values).toEqual(rows.map((_, i) => String(i + 1)));
  });

  it('stops reading when the reader stops early', async () => {
    const file = join(root, 'early.csv');
    await writeFile(file, `id\n${Array.from({ length: 100000 }, (_, i) => i).join('\n')}\n`);
    const doc = (await openCsv(file, { delimiter: ',', quote: '"', encoding: 'utf8' }))!;
    let seen = 0;
    for await (const event of eventsOf(doc.batches)) if (event.kind === 'record' && ++seen === 3) break;
    expect(seen).toBe(3);
    // The generator is finished: nothing more comes out of it.
    expect(await doc.batches.next()).toEqual({ done: true, value: undefined });
  });
});
