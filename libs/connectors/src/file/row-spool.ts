import { createReadStream, promises as fsp } from 'node:fs';
import { createInterface } from 'node:readline';

const FLUSH_CHARS = 1 << 20;

/**
 * Rows parked on disk between the start and the end of an export: appended as JSON lines (exact for
 * any text, and cheap to read back), then streamed once in order. Memory holds one buffer, never the rows.
 */
export class RowSpool {
  private buffer: string[] = [];
  private buffered = 0;
  private count = 0;

  private constructor(
    readonly path: string,
    private handle: fsp.FileHandle | null,
  ) {}

  /** Creates the spool file (which must not exist yet). */
  static async create(path: string): Promise<RowSpool> {
    return new RowSpool(path, await fsp.open(path, 'wx'));
  }

  get size(): number {
    return this.count;
  }

  async append(row: readonly string[]): Promise<void> {
    const line = JSON.stringify(row);
    this.buffer.push(line);
    this.buffered += line.length;
    this.count++;
    if (this.buffered >= FLUSH_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    if (!this.handle) throw new Error('The row spool is closed.');
    const text = `${this.buffer.join('\n')}\n`;
    this.buffer = [];
    this.buffered = 0;
    await this.handle.write(text);
  }

  /** Flushes and closes the file, then streams every row in the order appended. */
  async *rows(): AsyncGenerator<string[]> {
    await this.flush();
    await this.handle?.close();
    this.handle = null;
    const input = createReadStream(this.path, { highWaterMark: 256 * 1024 });
    const lines = createInterface({ input, crlfDelay: Infinity });
    try {
      for await (const line of lines) if (line) yield JSON.parse(line) as string[];
    } finally {
      lines.close();
      input.destroy();
    }
  }

  /** Closes and deletes the file; safe to call more than once. */
  async remove(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    this.buffer = [];
    await handle?.close().catch(() => undefined);
    await fsp.rm(this.path, { force: true });
  }
}
