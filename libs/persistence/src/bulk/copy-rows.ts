import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * A value as COPY text format writes it. null/undefined → NULL; Buffer → bytea hex; Date → ISO 8601;
 * boolean → t/f; number/bigint → decimal; plain objects and arrays → JSON (for json/jsonb columns);
 * strings as they are; PreEncoded verbatim.
 */
export type CopyValue = string | number | bigint | boolean | Date | Buffer | Uint8Array | null | undefined | object;

/** A field already in COPY text form, written as it is (for text the caller has escaped itself). */
export class PreEncoded {
  constructor(readonly text: string) {}
}

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Escapes text for one field of COPY's text format (backslash, tab, newline, carriage return). */
export function escapeCopyText(text: string): string {
  if (text.includes('\u0000')) throw new TypeError('COPY: PostgreSQL text cannot contain NUL (\\u0000) characters.');
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPES, (c) => ESCAPED[c]) : text;
}

/** One field of COPY's text format: `\N` for NULL, otherwise the escaped text form of the value. */
export function encodeCopyValue(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  switch (typeof value) {
    case 'string':
      return escapeCopyText(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`COPY: ${value} is not a finite number.`);
      return String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 't' : 'f';
    default:
      break;
  }
  if (value instanceof PreEncoded) return value.text;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('COPY: invalid Date.');
    return value.toISOString();
  }
  // bytea hex input `\x…`; the backslash is itself escaped for the text format.
  if (value instanceof Uint8Array) return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  return escapeCopyJson(JSON.stringify(value));
}

const BACKSLASHES = /\\/g;

/**
 * Escapes JSON text (as JSON.stringify makes it) for one field of COPY's text format. JSON text holds no
 * raw NUL, tab, newline or carriage return (JSON.stringify escapes them): only backslashes need escaping,
 * and a text without one is written as it is (one scan, no regex).
 */
export function escapeCopyJson(json: string): string {
  return json.includes('\\') ? json.replace(BACKSLASHES, '\\\\') : json;
}

/** One line of COPY's text format (fields separated by tabs, ended by a newline). */
export function encodeCopyLine(values: readonly CopyValue[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i ? '\t' : '') + encodeCopyValue(values[i]);
  return line + '\n';
}

/** A double-quoted identifier; `schema.table` is quoted part by part. */
export function quoteIdentifier(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}

/** Writes ~64 KiB at a time: fewer, larger writes to the socket than one per row. */
const CHUNK_CHARS = 64 * 1024;

/** Rows in COPY text form, ~64 KiB per chunk, counting them (a row of the wrong width is refused). */
export class CopyChunker {
  rows = 0;
  private chunk = '';

  constructor(private readonly width: number) {}

  /** Adds a row; answers a full chunk when one is ready. */
  add(row: readonly CopyValue[]): string | null {
    if (row.length !== this.width) throw new TypeError(`COPY: row ${this.rows + 1} has ${row.length} values for ${this.width} columns.`);
    this.chunk += encodeCopyLine(row);
    this.rows++;
    return this.chunk.length >= CHUNK_CHARS ? this.take() : null;
  }

  /** What is left. */
  take(): string | null {
    const chunk = this.chunk;
    this.chunk = '';
    return chunk || null;
  }
}

async function* copyChunks(
  rows: Iterable<readonly CopyValue[]> | AsyncIterable<readonly CopyValue[]>,
  chunker: CopyChunker,
): AsyncGenerator<string> {
  for await (const row of rows) {
    const chunk = chunker.add(row);
    if (chunk) yield chunk;
  }
  const rest = chunker.take();
  if (rest) yield rest;
}

/** Rows encoded in COPY text form ahead of sending them (sent with copyEncoded). */
export interface EncodedCopy {
  chunks: string[];
  rows: number;
}

/**
 * Streams text already in COPY text format (lines ending in a newline, e.g. built with
 * encodeCopyLine or read from a file) into `table`. Returns nothing: COPY reports no row count here.
 */
export async function copyEncoded(
  client: ClientBase,
  table: string,
  columns: readonly string[],
  chunks: Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  const sql = `COPY ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) FROM STDIN`;
  await pipeline(Readable.from(chunks, { objectMode: false }), client.query(copyFrom(sql)));
}

/**
 * Streams rows into `table` with `COPY … FROM STDIN` (text format), respecting back-pressure, so
 * memory stays bounded whatever the number of rows. Rows are arrays in the order of `columns`.
 * Returns the number of rows written. Runs on the caller's client (and so inside its transaction, if any).
 */
export async function copyRows(
  client: ClientBase,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyValue[]> | AsyncIterable<readonly CopyValue[]>,
): Promise<number> {
  if (!columns.length) throw new TypeError('copyRows needs at least one column.');
  const sql = `COPY ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) FROM STDIN`;
  const chunker = new CopyChunker(columns.length);
  const stream = client.query(copyFrom(sql));
  await pipeline(Readable.from(copyChunks(rows, chunker), { objectMode: false }), stream);
  return chunker.rows;
}
