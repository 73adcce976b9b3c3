import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CsvEvent, readCsv } from './csv-reader';

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
});
