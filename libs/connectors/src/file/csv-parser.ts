/** One record of a CSV text, with the line it starts on (1-based). */
export interface CsvRecord {
  kind: 'record';
  values: string[];
  line: number;
}

/** A record that could not be read (bad quoting); reading goes on with the next line. */
export interface CsvRecordError {
  kind: 'error';
  line: number;
  code: 'CSV_INVALID_CLOSING_QUOTE' | 'CSV_INVALID_OPENING_QUOTE' | 'CSV_QUOTE_NOT_CLOSED';
  message: string;
}

export type CsvEvent = CsvRecord | CsvRecordError;

const LF = 10;
const CR = 13;

const enum State {
  /** Before the first character of a record (or of an empty line). */
  RecordStart,
  /** Right after a delimiter: a field starts, possibly quoted. */
  FieldStart,
  /** Inside an unquoted field. */
  Unquoted,
  /** Inside a quoted field. */
  Quoted,
  /** A quote inside a quoted field: it closes the field, or escapes a second quote. */
  QuoteInQuoted,
  /** After a carriage return that ended a line: a line feed right after belongs to it. */
  AfterCr,
  /** After a bad record: everything up to the end of its line is skipped. */
  SkipLine,
}

/**
 * An incremental CSV parser (RFC 4180 with a configurable one-character delimiter and quote): text is
 * pushed in pieces of any size and complete records come out, so a file is parsed in one pass with memory
 * bounded by the pieces and the record being read, however the pieces cut it.
 *
 * - Records end with LF, CRLF or CR outside quotes; empty lines are skipped (a line of only delimiters
 *   is a record of empty fields).
 * - A field that starts with the quote is quoted: it may hold delimiters and line breaks, a doubled quote
 *   stands for one, and the closing quote must be followed by a delimiter, a line break or the end.
 * - Bad quoting makes the record an error, reported at the line the record starts on, and reading goes
 *   on after the end of the line where the problem was found: a quote inside an unquoted field
 *   (`CSV_INVALID_OPENING_QUOTE`), anything but a delimiter or line break after a closing quote
 *   (`CSV_INVALID_CLOSING_QUOTE`), a quote still open at the end of the text (`CSV_QUOTE_NOT_CLOSED`).
 * - Lines are counted as a text editor counts them (line breaks inside quoted fields included).
 */
export class CsvParser {
  private readonly delimiter: number;
  private readonly quote: number;
  private readonly quoteChar: string;
  private state = State.RecordStart;
  private values: string[] = [];
  /** The current field so far, when it spans pieces. */
  private field = '';
  /** Line of the next character. */
  private line = 1;
  /** Line the current record starts on. */
  private recordLine = 1;
  /** Inside a quoted field, the last character of the previous piece was a carriage return. */
  private quotedCr = false;

  constructor(delimiter: string, quote: string) {
    if (delimiter.length !== 1 || quote.length !== 1 || delimiter === quote)
      throw new TypeError('CsvParser: one-character delimiter and quote, distinct.');
    this.delimiter = delimiter.charCodeAt(0);
    this.quote = quote.charCodeAt(0);
    this.quoteChar = quote;
  }

  /** Parses the next piece of text; the records and errors it completes are appended to `out`. */
  push(text: string, out: CsvEvent[]): void {
    const n = text.length;
    const D = this.delimiter;
    const Q = this.quote;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case State.AfterCr:
          this.state = State.RecordStart;
          if (text.charCodeAt(i) === LF) i++;
          break;
        case State.SkipLine: {
          let c = 0;
          while (i < n && (c = text.charCodeAt(i)) !== LF && c !== CR) i++;
          if (i < n) {
            this.line++;
            this.state = c === CR ? State.AfterCr : State.RecordStart;
            i++;
          }
          break;
        }
        case State.RecordStart: {
          const c = text.charCodeAt(i);
          if (c === LF || c === CR) {
            // An empty line.
            this.line++;
            this.state = c === CR ? State.AfterCr : State.RecordStart;
            i++;
            break;
          }
          this.recordLine = this.line;
          this.state = State.FieldStart;
          break;
        }
        case State.FieldStart:
          if (text.charCodeAt(i) === Q) {
            this.state = State.Quoted;
            i++;
          } else {
            this.state = State.Unquoted;
          }
          break;
        case State.Unquoted: {
          const start = i;
          let c = 0;
          while (i < n && (c = text.charCodeAt(i)) !== D && c !== LF && c !== CR && c !== Q) i++;
          if (i === n) {
            this.field += text.slice(start, i);
            break;
          }
          if (c === Q) {
            this.fail(
              out,
              'CSV_INVALID_OPENING_QUOTE',
              `Invalid opening quote: a quote in the middle of field ${this.values.length + 1} (a field that holds a quote must be quoted as a whole, its quotes doubled)`,
            );
            i++;
            break;
          }
          this.values.push(this.field + text.slice(start, i));
          this.field = '';
          i++;
          if (c === D) this.state = State.FieldStart;
          else this.endRecord(out, c);
          break;
        }
        case State.Quoted: {
          const start = i;
          const at = text.indexOf(this.quoteChar, i);
          i = at === -1 ? n : at;
          const piece = text.slice(start, i);
          this.countQuotedLines(piece);
          this.field += piece;
          if (at !== -1) {
            this.state = State.QuoteInQuoted;
            i++;
          }
          break;
        }
        case State.QuoteInQuoted: {
          const c = text.charCodeAt(i);
          if (c === Q) {
            // A doubled quote: one quote character in the value.
            this.field += this.quoteChar;
            this.quotedCr = false;
            this.state = State.Quoted;
            i++;
          } else if (c === D || c === LF || c === CR) {
            this.values.push(this.field);
            this.field = '';
            this.quotedCr = false;
            i++;
            if (c === D) this.state = State.FieldStart;
            else this.endRecord(out, c);
          } else {
            this.fail(
              out,
              'CSV_INVALID_CLOSING_QUOTE',
              `Invalid closing quote: field ${this.values.length + 1} is followed by "${text[i]}" after its closing quote instead of a delimiter or the end of the line`,
            );
          }
          break;
        }
        default:
          throw new Error('CsvParser: unknown state.');
      }
    }
  }

  /** The end of the text: the record being read is complete (or, inside a quoted field, an error). */
  end(out: CsvEvent[]): void {
    switch (this.state) {
      case State.FieldStart:
      case State.Unquoted:
      case State.QuoteInQuoted:
        this.values.push(this.field);
        out.push({ kind: 'record', values: this.values, line: this.recordLine });
        break;
      case State.Quoted:
        out.push({
          kind: 'error',
          line: this.recordLine,
          code: 'CSV_QUOTE_NOT_CLOSED',
          message: `Quote not closed: field ${this.values.length + 1} opens a quote that is never closed`,
        });
        break;
      default:
        break;
    }
    this.values = [];
    this.field = '';
    this.state = State.RecordStart;
  }

  private endRecord(out: CsvEvent[], lineBreak: number): void {
    out.push({ kind: 'record', values: this.values, line: this.recordLine });
    this.values = [];
    this.line++;
    this.state = lineBreak === CR ? State.AfterCr : State.RecordStart;
  }

  private fail(out: CsvEvent[], code: CsvRecordError['code'], message: string): void {
    out.push({ kind: 'error', line: this.recordLine, code, message: `${message} (line ${this.line})` });
    this.values = [];
    this.field = '';
    this.quotedCr = false;
    this.state = State.SkipLine;
  }

  /** Counts the line breaks of a quoted field's piece (CRLF is one, also when the pieces split it). */
  private countQuotedLines(piece: string): void {
    if (!piece.length) return;
    if (piece.indexOf('\n') === -1 && piece.indexOf('\r') === -1) {
      this.quotedCr = false;
      return;
    }
    for (let k = 0; k < piece.length; k++) {
      const c = piece.charCodeAt(k);
      if (c === CR) this.line++;
      else if (c === LF && !this.quotedCr) this.line++;
      this.quotedCr = c === CR;
    }
  }
}
