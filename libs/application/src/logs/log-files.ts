import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The services whose logs can be read (spec 2.16), in the order the API lists them. */
export const LOG_SERVICES = ['web', 'worker', 'scheduler'] as const;
export type LogService = (typeof LOG_SERVICES)[number];

/**
 * `<service>-YYYY-MM-DD.log` is the first file of a UTC day; when it reaches the size limit
 * winston-daily-rotate-file continues in `.log.1`, `.log.2`… so a higher roll number holds newer lines.
 */
const FILE_NAME = /^(web|worker|scheduler)-(\d{4}-\d{2}-\d{2})\.log(?:\.(\d+))?$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface LogFileRef {
  fileName: string;
  path: string;
  service: LogService;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** 0 for the unsuffixed file, N for `.log.N`. */
  roll: number;
  sizeBytes: number;
}

/** True for a real calendar day written YYYY-MM-DD. */
export function isCalendarDay(day: string): boolean {
  const m = DAY.exec(day);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === day;
}

/** Service, day and roll number of a log file name, or null when the name is not one of ours. */
export function parseLogFileName(fileName: string): { service: LogService; day: string; roll: number } | null {
  const m = FILE_NAME.exec(fileName);
  if (!m || !isCalendarDay(m[2])) return null;
  return { service: m[1] as LogService, day: m[2], roll: m[3] === undefined ? 0 : Number(m[3]) };
}

/** The log files in `dir` (regular files only: audit files, symlinks and other names are left out). */
export async function scanLogDir(
  dir: string,
  wanted: (file: { service: LogService; day: string }) => boolean = () => true,
): Promise<LogFileRef[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw e;
  }
  const files: LogFileRef[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const parsed = parseLogFileName(entry.name);
    if (!parsed || !wanted(parsed)) continue;
    const path = join(dir, entry.name);
    try {
      files.push({ fileName: entry.name, path, ...parsed, sizeBytes: (await stat(path)).size });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e; // deleted by rotation meanwhile
    }
  }
  return files;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 512 → "512 B", 12_900_000 → "12.3 MB" (binary units, as the 50m rolling size). */
export function formatSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (unit < UNITS.length - 1 && Math.round(value * 10) / 10 >= 1024) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
