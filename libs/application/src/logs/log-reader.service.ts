import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@meridian/platform';
import { LOG_LEVEL_VIEWS, LogEntryView, LogLevelView } from './log-entry';
import { formatSize, LOG_SERVICES, LogFileRef, LogService, scanLogDir } from './log-files';
import { LogQuery, resolveLogQuery } from './log-query';
import { ReadStats } from './reverse-line-reader';
import { lineMatcher, ServiceLogStream } from './service-log-stream';

// The package exports this file only; these are the pieces the web layer needs for validation and docs.
export * from './log-entry';
export { formatSize, LOG_SERVICES, parseLogFileName } from './log-files';
export type { LogService } from './log-files';
export * from './log-query';
export type { ReadStats } from './reverse-line-reader';

/** A log file as the API lists it (spec 2.16). */
export interface LogFileView {
  fileName: string;
  service: LogService;
  /** Midnight UTC of the file's day. */
  date: string;
  sizeBytes: number;
  sizeFormatted: string;
}

/**
 * Reads the JSON-line log files of the web, worker and scheduler services (spec 4.12). Files are never
 * loaded whole: each is read backwards in chunks and the services are merged by timestamp, stopping as soon
 * as offset + limit entries have matched.
 */
@Injectable()
export class LogReaderService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Log files, newest day first, then by service name, then newest roll first. */
  async listFiles(): Promise<LogFileView[]> {
    const files = await scanLogDir(this.config.logDir);
    return files
      .sort((a, b) => b.day.localeCompare(a.day) || a.service.localeCompare(b.service) || b.roll - a.roll)
      .map((f) => ({
        fileName: f.fileName,
        service: f.service,
        date: `${f.day}T00:00:00.000Z`,
        sizeBytes: f.sizeBytes,
        sizeFormatted: formatSize(f.sizeBytes),
      }));
  }

  /** The levels in ascending severity. */
  levels(): LogLevelView[] {
    return LOG_LEVEL_VIEWS.map((l) => ({ ...l }));
  }

  services(): LogService[] {
    return [...LOG_SERVICES];
  }

  /** Entries of one UTC day, newest first across the chosen services and all the day's rolled files. */
  async read(query: LogQuery = {}, stats?: ReadStats): Promise<LogEntryView[]> {
    const q = resolveLogQuery(query);
    const files = await scanLogDir(this.config.logDir, (f) => f.day === q.day);
    const streams = q.services
      .map((service) => ({ service, files: files.filter((f) => f.service === service).sort(byRollDescending) }))
      .filter((s) => s.files.length > 0)
      .map((s) => new ServiceLogStream(s.files, lineMatcher(q, s.service), stats));

    const out: LogEntryView[] = [];
    let toSkip = q.offset;
    try {
      while (out.length < q.limit) {
        if (streams.some((s) => s.needsFill)) await Promise.all(streams.map((s) => s.fill()));
        let newest: ServiceLogStream | undefined;
        for (const stream of streams) {
          const head = stream.head;
          if (head && (!newest || head.time > newest.head!.time)) newest = stream;
        }
        if (!newest) break;
        const { entry } = newest.take();
        if (toSkip > 0) toSkip--;
        else out.push(entry);
      }
    } finally {
      await Promise.all(streams.map((s) => s.close()));
    }
    return out;
  }
}

function byRollDescending(a: LogFileRef, b: LogFileRef): number {
  return b.roll - a.roll;
}
