import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { type CsvEvent, CsvParser } from './csv-parser';

export type { CsvEvent, CsvRecord, CsvRecordError } from './csv-parser';

export interface CsvFormat {
  delimiter: string;
  quote: string;
  /** Decoding of the bytes; a byte order mark overrides it (UTF-8, or UTF-16 little-endian). */
  encoding: 'utf8' | 'latin1';
}

const isBlankRecord = (values: readonly string[]) => values.every((v) => v.trim() === '');

/** The encoding a byte order mark announces, and its length; null when the bytes start with none. */
function byteOrderMark(bytes: Buffer): { encoding: BufferEncoding; length: number } | null {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf8', length: 3 };
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf16le', length: 2 };
  return null;
}

/**
 * Streams the records of a CSV file (CsvParser over a read stream: memory is bounded by the stream
 * buffers, whatever the file size), a batch per read of the file: the records and errors that read
 * completed, in file order. Empty lines and rows of only empty fields are skipped; records with bad
 * quoting come out as `error` events through the same stream as the records, and a bad row never ends the
 * read. The consumer checks column counts. Stopping the iteration early closes the file. A batch per read,
 * not an event per record, keeps the cost of asynchronous iteration per read (a thousand records or so).
 */
export async function* readCsvBatches(
  filePath: string,
  format: CsvFormat,
  streamOptions: { highWaterMark?: number } = {},
): AsyncGenerator<CsvEvent[]> {
  const parser = new CsvParser(format.delimiter, format.quote);
  const input = createReadStream(filePath, { highWaterMark: streamOptions.highWaterMark ?? 256 * 1024 });
  let decoder: StringDecoder | null = null;
  // The first bytes, until there are enough to recognise a byte order mark.
  let head: Buffer | null = Buffer.alloc(0);
  const decode = (bytes: Buffer): string => {
    if (head) {
      head = Buffer.concat([head, bytes]);
      if (head.length < 3 && bytes.length > 0) return '';
      const bom = byteOrderMark(head);
      decoder = new StringDecoder(bom?.encoding ?? format.encoding);
      bytes = bom ? head.subarray(bom.length) : head;
      head = null;
    }
    return decoder!.write(bytes);
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      const events: CsvEvent[] = [];
      parser.push(decode(chunk), events);
      if (withoutBlankRecords(events).length) yield events;
    }
    const events: CsvEvent[] = [];
    const rest = decode(Buffer.alloc(0));
    parser.push(rest + decoder!.end(), events);
    parser.end(events);
    if (withoutBlankRecords(events).length) yield events;
  } finally {
    input.destroy();
  }
}

/** The records of a CSV file one by one (readCsvBatches, flattened). */
export async function* readCsv(
  filePath: string,
  format: CsvFormat,
  streamOptions: { highWaterMark?: number } = {},
): AsyncGenerator<CsvEvent> {
  yield* eventsOf(readCsvBatches(filePath, format, streamOptions));
}

/** The events of batches one by one; stopping early stops the batches (and so closes the file). */
export async function* eventsOf(batches: AsyncIterable<CsvEvent[]>): AsyncGenerator<CsvEvent> {
  for await (const batch of batches) yield* batch;
}

/** Removes, in place, the rows of only empty fields; returns the array. */
function withoutBlankRecords(events: CsvEvent[]): CsvEvent[] {
  let kept = 0;
  for (const event of events) if (event.kind === 'error' || !isBlankRecord(event.values)) events[kept++] = event;
  events.length = kept;
  return events;
}

/** The header of a CSV file and its data records/errors, for consumers that need the header first. */
export interface CsvDocument {
  header: string[];
  /** Data records and errors after the header, in batches (readCsvBatches; iterate once, or with eventsOf). */
  batches: AsyncGenerator<CsvEvent[]>;
}

/**
 * Opens a CSV file and reads its header. Resolves to null when the file holds no record at all.
 * Throws when the header itself cannot be parsed.
 */
export async function openCsv(filePath: string, format: CsvFormat): Promise<CsvDocument | null> {
  const batches = readCsvBatches(filePath, format);
  const first = await batches.next();
  if (first.done) return null;
  const [header, ...rest] = first.value;
  if (header.kind === 'error') {
    await batches.return(undefined);
    throw new Error(`The header (line ${header.line}) cannot be read: ${header.message}`);
  }
  return { header: header.values, batches: afterHeader(rest, batches) };
}

/** The records that came with the header, then the following batches. */
async function* afterHeader(first: CsvEvent[], more: AsyncGenerator<CsvEvent[]>): AsyncGenerator<CsvEvent[]> {
  try {
    if (first.length) yield first;
    yield* more;
  } finally {
    await more.return(undefined);
  }
}
