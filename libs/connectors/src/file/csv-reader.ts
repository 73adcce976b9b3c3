import { createReadStream } from 'node:fs';
import { parse, type Options } from 'csv-parse';

export interface CsvFormat {
  delimiter: string;
  quote: string;
  /** Decoding of the bytes; a byte order mark overrides it (csv-parse switches to the BOM's encoding). */
  encoding: 'utf8' | 'latin1';
}

/** One record of the file (the first one is the header), with the line it starts on (1-based). */
export interface CsvRecord {
  kind: 'record';
  values: string[];
  line: number;
}

/** A record the parser could not read (bad quoting); reading goes on with the next record. */
export interface CsvRecordError {
  kind: 'error';
  line: number;
  code: string;
  message: string;
}

export type CsvEvent = CsvRecord | CsvRecordError;

/** What leaves the parser: a record tagged with the line it ends on, or a record it rejected. */
type ParsedItem = { values: string[]; endLine: number; error?: undefined } | { error: CsvRecordError };

/** Lines a record's fields span beyond its first line (quoted fields may hold line breaks). */
function extraLines(values: readonly string[]): number {
  let count = 0;
  for (const value of values) {
    if (value.length === 0) continue;
    for (let i = value.indexOf('\n'); i !== -1; i = value.indexOf('\n', i + 1)) count++;
    if (value.includes('\r')) for (let i = 0; i < value.length; i++) if (value[i] === '\r' && value[i + 1] !== '\n') count++;
  }
  return count;
}

const isBlankRecord = (values: readonly string[]) => values.every((v) => v.trim() === '');

/**
 * Streams the records of a CSV file (csv-parse over a read stream: memory is bounded by the stream
 * buffers, whatever the file size). Empty lines and rows of only empty fields are skipped; records
 * csv-parse rejects (an unclosed or misplaced quote) come out as `error` events in file order, through
 * the same stream as the records (so a file of nothing but bad rows is still read with backpressure),
 * and a bad row never ends the read. The consumer checks column counts. Stopping the iteration early
 * closes the file.
 */
export async function* readCsv(
  filePath: string,
  format: CsvFormat,
  streamOptions: { highWaterMark?: number } = {},
): AsyncGenerator<CsvEvent> {
  // Parser-side position, to place errors.
  let lastEndLine = 0;
  let lastEmptyLines = 0;
  let lastSkippedRecord = -1;
  const options: Options = {
    delimiter: format.delimiter,
    quote: format.quote,
    escape: format.quote,
    encoding: format.encoding,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (skipped) => {
      if (!skipped) return undefined;
      // csv-parse copies the parser position onto its errors.
      const err = skipped as typeof skipped & { lines?: number; records?: number; empty_lines?: number };
      const records = err.records ?? 0;
      if (records === lastSkippedRecord) return undefined; // a further complaint about the same record
      lastSkippedRecord = records;
      if (err.code === 'CSV_INVALID_CLOSING_QUOTE') {
        // `"abc"x`: csv-parse would stay inside the quotes and swallow the following rows into this bad
        // one. Close the quote instead, so only this record is lost (csv-parse 7.0.3 internals; the
        // recovery is covered by tests).
        const state = (parser as unknown as { state: { quoting: boolean; wasQuoting: boolean } }).state;
        state.quoting = false;
        state.wasQuoting = true;
      }
      const emptyLines = err.empty_lines ?? lastEmptyLines;
      const line = lastEndLine + 1 + Math.max(0, emptyLines - lastEmptyLines);
      push({ error: { kind: 'error', line, code: err.code ?? 'CSV_ERROR', message: err.message } } satisfies ParsedItem);
      lastEndLine = Math.max(line, err.lines ?? line);
      lastEmptyLines = emptyLines;
      return undefined;
    },
  };
  const parser = parse(options);
  const info = (parser as unknown as { info: { lines: number; empty_lines: number } }).info;
  // Tag each record with the line it ends on as it leaves the parser. (csv-parse's on_record hook
  // does the same but copies its whole info object per record, which costs a third of the throughput.)
  const push = parser.push.bind(parser);
  parser.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === null) return push(null, encoding);
    lastEndLine = info.lines;
    lastEmptyLines = info.empty_lines;
    return push({ values: chunk as string[], endLine: info.lines } satisfies ParsedItem, encoding);
  };
  const input = createReadStream(filePath, { highWaterMark: streamOptions.highWaterMark ?? 256 * 1024 });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  try {
    for await (const parsed of parser as AsyncIterable<ParsedItem>) {
      if (parsed.error) yield parsed.error;
      else if (!isBlankRecord(parsed.values))
        yield { kind: 'record', values: parsed.values, line: parsed.endLine - extraLines(parsed.values) };
    }
  } finally {
    input.destroy();
    parser.destroy();
  }
}

/** The header of a CSV file and its data records/errors, for consumers that need the header first. */
export interface CsvDocument {
  header: string[];
  /** Data records and errors after the header (iterate once). */
  rows: AsyncGenerator<CsvEvent>;
}

/**
 * Opens a CSV file and reads its header. Resolves to null when the file holds no record at all.
 * Throws when the header itself cannot be parsed.
 */
export async function openCsv(filePath: string, format: CsvFormat): Promise<CsvDocument | null> {
  const events = readCsv(filePath, format);
  const first = await events.next();
  if (first.done) return null;
  if (first.value.kind === 'error') {
    await events.return(undefined);
    throw new Error(`The header (line ${first.value.line}) cannot be read: ${first.value.message}`);
  }
  return { header: first.value.values, rows: events };
}
