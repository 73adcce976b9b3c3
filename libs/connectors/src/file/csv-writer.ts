import type { promises as fsp } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import type { FileSettings } from './file-settings';

/** Writes rows as CSV text in the file's encoding, buffering to keep write calls large. */
export class CsvFileWriter {
  private pending: string[][] = [];

  constructor(
    private readonly handle: fsp.FileHandle,
    private readonly settings: FileSettings,
  ) {}

  async start(header: string[]): Promise<void> {
    if (this.settings.writeBom) await this.handle.write(Buffer.from([0xef, 0xbb, 0xbf]));
    await this.add(header);
  }

  async add(row: string[]): Promise<void> {
    this.pending.push(row);
    if (this.pending.length >= 1000) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = stringify(this.pending, {
      delimiter: this.settings.delimiter,
      quote: this.settings.quote,
      escape: this.settings.quote,
      record_delimiter: 'unix',
      eof: true,
      // A bare carriage return would end the record for a reader that auto-detects line endings.
      quoted_match: /\r/,
    });
    this.pending = [];
    await this.handle.write(Buffer.from(text, this.settings.nodeEncoding));
  }
}
