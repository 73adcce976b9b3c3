import { parseLogLine, resolveLogLevel, TimedEntry } from './log-entry';
import { LogFileRef } from './log-files';
import { ResolvedLogQuery } from './log-query';
import { ReadStats, ReverseLineReader } from './reverse-line-reader';

/** Characters JSON.stringify writes unchanged; a needle made only of these appears verbatim in a matching line. */
const VERBATIM_IN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * How the logger starts every line. When it matches, these are the top-level timestamp and level: a quote
 * inside a JSON string is always escaped, so nothing nested can be mistaken for them.
 */
const LINE_HEAD = /^\{"timestamp":"[^"\\]*","level":"([^"\\]*)"/;

/** Decides whether a line is wanted, rejecting most non-matches before parsing the JSON. */
export function lineMatcher(query: Pick<ResolvedLogQuery, 'levels' | 'search'>, service: string): (line: string) => TimedEntry | null {
  const { levels, search } = query;
  const prefilter = search !== null && VERBATIM_IN_JSON.test(search);
  return (line) => {
    // toLowerCase works character by character, so a match in the message is also a match in the lowered line.
    if (prefilter && !line.toLowerCase().includes(search)) return null;
    if (levels) {
      const level = resolveLogLevel(LINE_HEAD.exec(line)?.[1]);
      if (level && !levels.has(level.name)) return null;
    }
    const parsed = parseLogLine(line, service);
    if (!parsed) return null;
    const { entry } = parsed;
    if (levels && !levels.has(entry.level)) return null;
    if (search !== null && !entry.message.toLowerCase().includes(search) && !entry.exception?.toLowerCase().includes(search)) return null;
    return parsed;
  };
}

/**
 * The matching entries of one service's files for one day, newest first: files from the highest roll
 * number down, each read backwards. Holds one chunk's worth of entries at a time.
 */
export class ServiceLogStream {
  private queue: TimedEntry[] = [];
  private next = 0;
  private fileIndex = 0;
  private reader: ReverseLineReader | null = null;
  private exhausted = false;

  constructor(
    /** Newest first. */
    private readonly files: LogFileRef[],
    private readonly matches: (line: string) => TimedEntry | null,
    private readonly stats?: ReadStats,
  ) {}

  get head(): TimedEntry | undefined {
    return this.queue[this.next];
  }

  /** True when head is empty but more lines may follow: call fill() first. */
  get needsFill(): boolean {
    return this.next >= this.queue.length && !this.exhausted;
  }

  take(): TimedEntry {
    return this.queue[this.next++];
  }

  /** Reads until there is a head entry or the files are exhausted. */
  async fill(): Promise<void> {
    while (this.needsFill) {
      const lines = await this.nextLines();
      if (!lines) {
        this.exhausted = true;
        break;
      }
      this.queue = [];
      this.next = 0;
      for (const line of lines) {
        const entry = this.matches(line);
        if (entry) this.queue.push(entry);
      }
    }
  }

  async close(): Promise<void> {
    this.exhausted = true;
    const reader = this.reader;
    this.reader = null;
    await reader?.close();
  }

  private async nextLines(): Promise<string[] | null> {
    for (;;) {
      if (!this.reader) {
        if (this.fileIndex >= this.files.length) return null;
        this.reader = await ReverseLineReader.open(this.files[this.fileIndex++].path, { stats: this.stats });
        if (!this.reader) continue;
      }
      const lines = await this.reader.nextLines();
      if (lines) return lines;
      this.reader = null; // closed itself at the start of the file
    }
  }
}
