// Deterministic HR test data (DOMAIN.md §7): the same number of rows always produces the same bytes,
// and row i is the same whatever the size (a 1,000-row file is the prefix of the 1,000,000-row one).
// Kept free of other imports so tools/generate-hr-csv.js can load it on its own.
import { createWriteStream } from 'node:fs';

/** Header of the generated file, in column order. */
export const HR_CSV_COLUMNS = [
  'employeeId',
  'firstName',
  'lastName',
  'email',
  'department',
  'title',
  'company',
  'pronouns',
  'samAccountName',
  'displayName',
  'status',
  'userPrincipalName',
  'employeeType',
  'employeeEndDate',
  'manager',
] as const;

export type HrColumn = (typeof HR_CSV_COLUMNS)[number];
export type HrRecord = Record<HrColumn, string>;

/** The 12 departments, assigned in a cycle (row 1 → Engineering, row 13 → Engineering again). */
export const HR_DEPARTMENTS = [
  'Engineering',
  'Sales',
  'Marketing',
  'Finance',
  'Human Resources',
  'Legal',
  'Operations',
  'Customer Support',
  'Research',
  'Facilities',
  'Procurement',
  'Information Technology',
] as const;

/** Number of direct reports per manager: row i (i > 1) reports to row floor((i - 2) / SPAN) + 1. */
export const HR_MANAGER_SPAN = 8;

const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Frances',
  'Niklaus',
  'Radia',
  'Tim',
  'Shafi',
  'Leslie',
  'Sophie',
  'John',
  'Katherine',
  'Dennis',
  'Hedy',
  'Linus',
  'Joan',
  'Vint',
  'Mary',
  'Guido',
  'Zoë',
  'José',
  'Renée',
  'Björn',
  'François',
  'Anaïs',
  'Chloé',
  'Mikael',
  'Priya',
  'Wei',
  'Amara',
  'Kofi',
];
const LAST_NAMES = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Allen',
  'Wirth',
  'Perlman',
  'Berners-Lee',
  'Goldwasser',
  'Lamport',
  'Wilson',
  'McCarthy',
  'Johnson',
  'Ritchie',
  'Lamarr',
  'Torvalds',
  'Clarke',
  'Cerf',
  'Keller',
  "O'Neil",
  'Müller',
  'García',
  'Núñez',
  'Fernández',
  'Lindqvist',
  'Dubois',
  'Nakamura',
  'Okafor',
];
const TITLES = [
  'Analyst',
  'Senior Analyst',
  'Engineer',
  'Senior Engineer',
  'Specialist',
  'Coordinator',
  'Team Lead',
  'Manager',
  'Director, Strategy',
  'Head of Department',
  'Associate',
  'Consultant "Tier 2"',
];
const COMPANIES = ['Meridian Holdings', 'Meridian Labs', 'Meridian Services Ltd'];
const PRONOUNS = ['she/her', 'he/him', 'they/them'];
const SEED = 0x4d455249; // "MERI"
const DAY_MS = 86_400_000;
const PAST_START = Date.UTC(2019, 0, 1);
const FUTURE_START = Date.UTC(2026, 0, 1);

/** mulberry32 seeded per row, so rows are independent of each other and of the file size. */
function rowRandom(index: number): () => number {
  let state = (SEED ^ Math.imul(index, 0x9e3779b9)) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)];
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Folds accents and drops everything but letters, digits and hyphens (for account names). */
function accountPart(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '');
}

/** The employee ID of row `index` (1-based): EMP000001 … */
export function hrEmployeeId(index: number): string {
  return `EMP${String(index).padStart(6, '0')}`;
}

/** Row `index` (1-based) of the HR file. */
export function hrRecord(index: number): HrRecord {
  if (!Number.isSafeInteger(index) || index < 1) throw new RangeError(`Row index must be a positive integer, got ${index}.`);
  const random = rowRandom(index);
  const firstName = pick(random, FIRST_NAMES);
  const lastName = pick(random, LAST_NAMES);
  const sam = `${accountPart(firstName)}.${accountPart(lastName)}${index}`;
  const statusDraw = random();
  const status = statusDraw < 0.85 ? 'Active' : statusDraw < 0.95 ? 'Archived' : 'Established';
  const employeeType = index % 5 === 0 ? 'Contractor' : 'Employee';
  const endDraw = random();
  const dayDraw = Math.floor(random() * 1000);
  let employeeEndDate = '';
  if (status === 'Archived') employeeEndDate = isoDate(PAST_START + dayDraw * DAY_MS);
  else if (employeeType === 'Contractor' && endDraw < 0.5) employeeEndDate = isoDate(FUTURE_START + dayDraw * DAY_MS);
  const pronounDraw = random();
  return {
    employeeId: hrEmployeeId(index),
    firstName,
    lastName,
    email: `${sam}@example.com`,
    department: HR_DEPARTMENTS[(index - 1) % HR_DEPARTMENTS.length],
    title: pick(random, TITLES),
    company: pick(random, COMPANIES),
    pronouns: pronounDraw < 0.35 ? '' : PRONOUNS[Math.floor(((pronounDraw - 0.35) / 0.65) * PRONOUNS.length)],
    samAccountName: sam,
    displayName: `${firstName} ${lastName}`,
    status,
    userPrincipalName: `${sam}@corp.example.com`,
    employeeType,
    employeeEndDate,
    manager: index === 1 ? '' : hrEmployeeId(Math.floor((index - 2) / HR_MANAGER_SPAN) + 1),
  };
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function csvLine(values: readonly string[]): string {
  return values.map(csvField).join(',') + '\n';
}

function checkRows(rows: number): void {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new RangeError(`Row count must be a non-negative integer, got ${rows}.`);
}

/** The file as UTF-8 text chunks (header first, then `chunkRows` rows per chunk), generated lazily. */
export function* hrCsvChunks(rows: number, chunkRows = 1000): Generator<string> {
  checkRows(rows);
  yield csvLine(HR_CSV_COLUMNS);
  for (let start = 1; start <= rows; start += chunkRows) {
    let chunk = '';
    const end = Math.min(rows, start + chunkRows - 1);
    for (let i = start; i <= end; i++) {
      const record = hrRecord(i);
      chunk += csvLine(HR_CSV_COLUMNS.map((c) => record[c]));
    }
    yield chunk;
  }
}

/** The whole file as one string (small sizes only; use writeHrCsv for large ones). */
export function hrCsvText(rows: number): string {
  return [...hrCsvChunks(rows)].join('');
}

/** Writes the file with `rows` rows, streaming (memory stays flat at 1,000,000 rows). Resolves to the byte count. */
export async function writeHrCsv(filePath: string, rows: number): Promise<number> {
  checkRows(rows);
  const out = createWriteStream(filePath);
  let bytes = 0;
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  for (const chunk of hrCsvChunks(rows)) {
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await Promise.race([new Promise<void>((resolve) => out.once('drain', () => resolve())), failed]);
  }
  await Promise.race([new Promise<void>((resolve) => out.end(() => resolve())), failed]);
  return bytes;
}
