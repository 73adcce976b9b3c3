import { FileHandle, open } from 'node:fs/promises';

const NEWLINE = 0x0a;

export const DEFAULT_CHUNK_BYTES = 64 * 1024;
/** Longer lines are skipped rather than buffered: one runaway line must not hold the whole file in memory. */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

/** Counters of one read, for tests and diagnostics. */
export interface ReadStats {
  filesOpened: number;
  bytesRead: number;
}

/**
 * Reads a text file from its end towards its start, one chunk at a time, handing out the chunk's complete
 * lines last line first. Memory is one chunk plus the part of a line that straddles chunks (capped).
 * The size is taken when the file is opened, so lines appended while reading are not seen.
 */
export class ReverseLineReader {
  private readonly buffer: Buffer;
  private position: number;
  /** Bytes after the last line start found so far: the end of a line whose start is in an earlier chunk. */
  private carry: Buffer | null = null;
  /** The line being assembled grew past the cap: drop bytes until its start is found. */
  private skipping = false;
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    size: number,
    chunkBytes: number,
    private readonly maxLineBytes: number,
    private readonly stats?: ReadStats,
  ) {
    this.position = size;
    this.buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkBytes, size)));
  }

  /** Opens a file, or returns null when it no longer exists (rolled away while listing). */
  static async open(
    path: string,
    options: { chunkBytes?: number; maxLineBytes?: number; stats?: ReadStats } = {},
  ): Promise<ReverseLineReader | null> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    try {
      const { size } = await handle.stat();
      if (options.stats) options.stats.filesOpened++;
      return new ReverseLineReader(
        handle,
        size,
        options.chunkBytes ?? DEFAULT_CHUNK_BYTES,
        options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
        options.stats,
      );
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  /** The next lines towards the start of the file, newest first; null once the first line has been returned. */
  async nextLines(): Promise<string[] | null> {
    while (!this.closed) {
      if (this.position === 0) {
        const first = this.skipping ? null : this.carry;
        await this.close();
        const lines: string[] = [];
        if (first) this.pushBytes(lines, first);
        return lines.length ? lines : null;
      }
      const lines = await this.readChunk();
      if (lines.length) return lines;
    }
    return null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.carry = null;
    await this.handle.close();
  }

  private async readChunk(): Promise<string[]> {
    const length = Math.min(this.buffer.length, this.position);
    this.position -= length;
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(this.buffer, filled, length - filled, this.position + filled);
      if (bytesRead === 0) break; // truncated under us: treat the rest as empty
      filled += bytesRead;
    }
    if (this.stats) this.stats.bytesRead += filled;
    const chunk = this.buffer.subarray(0, filled);

    const lines: string[] = [];
    const last = chunk.length > 0 ? chunk.lastIndexOf(NEWLINE, chunk.length - 1) : -1;
    if (last === -1) {
      this.extendCarry(chunk);
      return lines;
    }
    // The chunk's last segment completes the line carried from the later chunk.
    const tail = chunk.subarray(last + 1);
    if (!this.skipping) this.pushBytes(lines, this.carry ? Buffer.concat([tail, this.carry]) : tail);
    this.skipping = false;
    // Between the first and the last newline are whole lines: decode them at once. Splitting the decoded
    // text on '\n' is safe because that byte never occurs inside a multi-byte UTF-8 character.
    const first = chunk.indexOf(NEWLINE);
    if (first < last) {
      const parts = chunk.toString('utf8', first + 1, last).split('\n');
      for (let i = parts.length - 1; i >= 0; i--) this.pushText(lines, parts[i]);
    }
    // The chunk's first segment belongs to a line that starts in an earlier chunk; copy it out of the buffer.
    this.carry = Buffer.from(chunk.subarray(0, first));
    if (this.carry.length > this.maxLineBytes) this.dropCarry();
    return lines;
  }

  private extendCarry(chunk: Buffer): void {
    if (this.skipping) return;
    this.carry = this.carry ? Buffer.concat([chunk, this.carry]) : Buffer.from(chunk);
    if (this.carry.length > this.maxLineBytes) this.dropCarry();
  }

  private dropCarry(): void {
    this.carry = null;
    this.skipping = true;
  }

  private pushBytes(lines: string[], bytes: Buffer): void {
    if (bytes.length === 0 || bytes.length > this.maxLineBytes) return;
    this.pushText(lines, bytes.toString('utf8'));
  }

  private pushText(lines: string[], text: string): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    // Characters never outnumber bytes, so this only drops lines that are certainly too long.
    if (line.length === 0 || line.length > this.maxLineBytes) return;
    lines.push(line);
  }
}
