import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadStats, ReverseLineReader } from './reverse-line-reader';

describe('ReverseLineReader', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'meridian-reverse-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  async function readAll(content: string | Buffer, options: { chunkBytes?: number; maxLineBytes?: number } = {}): Promise<string[]> {
    const path = join(dir, `f${n++}.log`);
    writeFileSync(path, content);
    const reader = await ReverseLineReader.open(path, options);
    const lines: string[] = [];
    for (let batch = await reader!.nextLines(); batch; batch = await reader!.nextLines()) lines.push(...batch);
    return lines;
  }

  const lines = ['first', '', 'a line with ünïcödé ✓ and emoji 🎉', 'x'.repeat(50), 'short', 'last'];

  it.each([1, 2, 3, 7, 16, 64, 65536])(
    'returns every line last first with %i-byte chunks, across multi-byte characters',
    async (chunkBytes) => {
      expect(await readAll(`${lines.join('\n')}\n`, { chunkBytes })).toEqual(lines.filter(Boolean).reverse());
    },
  );

  it('returns a final line without newline, strips CR and skips blank lines', async () => {
    expect(await readAll('one\r\ntwo\r\n\r\n\nthree', { chunkBytes: 4 })).toEqual(['three', 'two', 'one']);
  });

  it('handles empty files and files of newlines only', async () => {
    expect(await readAll('')).toEqual([]);
    expect(await readAll('\n\n\n', { chunkBytes: 2 })).toEqual([]);
  });

  it('skips a line longer than the cap without buffering it, keeping its neighbours', async () => {
    const content = `before\n${'y'.repeat(100)}\nafter\n${'z'.repeat(40)}`;
    expect(await readAll(content, { chunkBytes: 8, maxLineBytes: 30 })).toEqual(['after', 'before']);
  });

  it('returns null for a file that does not exist', async () => {
    expect(await ReverseLineReader.open(join(dir, 'missing.log'))).toBeNull();
  });

  it('reads only as much of the file as the caller consumes', async () => {
    const path = join(dir, 'big.log');
    writeFileSync(path, Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join('\n'));
    const stats: ReadStats = { filesOpened: 0, bytesRead: 0 };
    const reader = await ReverseLineReader.open(path, { chunkBytes: 4096, stats });
    const batch = await reader!.nextLines();
    await reader!.close();
    expect(batch![0]).toBe('line 99999');
    expect(stats).toEqual({ filesOpened: 1, bytesRead: 4096 });
  });
});
