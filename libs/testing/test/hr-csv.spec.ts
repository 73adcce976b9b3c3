import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HR_CSV_COLUMNS, HR_DEPARTMENTS, hrCsvChunks, hrCsvText, hrRecord, writeHrCsv } from '../src/hr-csv';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** Minimal RFC 4180 reader for the test (the generator quotes fields with commas and quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  return rows;
}

describe('HR CSV generator', () => {
  const rows1000 = hrCsvText(1000);

  it('produces the same bytes for the same size (pinned: changing the generator changes this hash on purpose)', () => {
    expect(sha256(hrCsvText(1000))).toBe(sha256(rows1000));
    expect(sha256(rows1000)).toBe('fa518fb3a2fd191b53ca40df3793fbfd44405233b88a7f65a4516255821dde9f');
  });

  it('is prefix-stable: the 10-row file is the start of the 1,000-row file', () => {
    expect(rows1000.startsWith(hrCsvText(10))).toBe(true);
    expect([...hrCsvChunks(1000, 7)].join('')).toBe(rows1000);
  });

  it('writes the same bytes to a file as it generates in memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hr-csv-'));
    try {
      const file = join(dir, 'hr.csv');
      const bytes = await writeHrCsv(file, 1000);
      const written = await readFile(file);
      expect(bytes).toBe(written.length);
      expect(sha256(written)).toBe(sha256(rows1000));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('structure of 1,000 rows', () => {
    const table = parseCsv(rows1000);
    const [header, ...data] = table;
    const records = data.map((values) => Object.fromEntries(header.map((h, i) => [h, values[i]])) as Record<string, string>);

    it('has the columns of DOMAIN.md §7, one row per employee, sequential IDs', () => {
      expect(header).toEqual([...HR_CSV_COLUMNS]);
      expect(records).toHaveLength(1000);
      expect(data.every((r) => r.length === HR_CSV_COLUMNS.length)).toBe(true);
      expect(records[0].employeeId).toBe('EMP000001');
      expect(records[999].employeeId).toBe('EMP001000');
      expect(new Set(records.map((r) => r.employeeId)).size).toBe(1000);
      expect(records[4]).toEqual(hrRecord(5));
    });

    it('derives account names, email, UPN and display name from the names and the row number', () => {
      for (const [i, r] of records.entries()) {
        expect(r.samAccountName).toMatch(new RegExp(`^[a-z-]+\\.[a-z-]+${i + 1}$`));
        expect(r.email).toBe(`${r.samAccountName}@example.com`);
        expect(r.userPrincipalName).toBe(`${r.samAccountName}@corp.example.com`);
        expect(r.displayName).toBe(`${r.firstName} ${r.lastName}`);
      }
      expect(new Set(records.map((r) => r.samAccountName)).size).toBe(1000);
    });

    it('cycles through 12 departments and makes every fifth employee a contractor', () => {
      records.forEach((r, i) => {
        expect(r.department).toBe(HR_DEPARTMENTS[i % 12]);
        expect(r.employeeType).toBe((i + 1) % 5 === 0 ? 'Contractor' : 'Employee');
      });
      expect(new Set(records.map((r) => r.department)).size).toBe(12);
    });

    it('distributes status roughly 85 / 10 / 5 %', () => {
      const share = (s: string) => records.filter((r) => r.status === s).length / records.length;
      expect(share('Active')).toBeGreaterThan(0.8);
      expect(share('Active')).toBeLessThan(0.9);
      expect(share('Archived')).toBeGreaterThan(0.06);
      expect(share('Archived')).toBeLessThan(0.14);
      expect(share('Established')).toBeGreaterThan(0.02);
      expect(share('Established')).toBeLessThan(0.08);
      expect(share('Active') + share('Archived') + share('Established')).toBe(1);
    });

    it('leaves some pronouns empty and gives end dates as ISO dates or empty (always for archived employees)', () => {
      const empty = records.filter((r) => r.pronouns === '').length;
      expect(empty).toBeGreaterThan(100);
      expect(empty).toBeLessThan(900);
      for (const r of records) {
        expect(r.employeeEndDate).toMatch(/^(\d{4}-\d{2}-\d{2})?$/);
        if (r.employeeEndDate) expect(new Date(`${r.employeeEndDate}T00:00:00Z`).toISOString().slice(0, 10)).toBe(r.employeeEndDate);
        if (r.status === 'Archived') expect(r.employeeEndDate).not.toBe('');
      }
      expect(records.some((r) => r.employeeEndDate === '')).toBe(true);
    });

    it('quotes values with commas and quotes so they read back intact', () => {
      expect(records.some((r) => r.title.includes(','))).toBe(true);
      expect(records.some((r) => r.title.includes('"'))).toBe(true);
      expect(records.some((r) => [...r.displayName].some((c) => c.charCodeAt(0) > 0x7f))).toBe(true);
    });

    it('links every employee but the first to an existing manager, forming one tree rooted at EMP000001', () => {
      const ids = new Set(records.map((r) => r.employeeId));
      const managerOf = new Map(records.map((r) => [r.employeeId, r.manager]));
      expect(records[0].manager).toBe('');
      for (const r of records.slice(1)) {
        expect(ids.has(r.manager)).toBe(true);
        expect(r.manager).not.toBe(r.employeeId);
      }
      // Walking up from every employee reaches the root without revisiting anyone (no cycles).
      for (const r of records) {
        const seen = new Set<string>();
        let current = r.employeeId;
        while (managerOf.get(current)) {
          expect(seen.has(current)).toBe(false);
          seen.add(current);
          current = managerOf.get(current)!;
        }
        expect(current).toBe('EMP000001');
      }
      const reports = new Map<string, number>();
      for (const r of records.slice(1)) reports.set(r.manager, (reports.get(r.manager) ?? 0) + 1);
      expect(Math.max(...reports.values())).toBeLessThanOrEqual(8);
      expect(reports.size).toBeGreaterThan(100);
    });
  });

  it('refuses negative or fractional sizes', () => {
    expect(() => hrCsvText(-1)).toThrow(RangeError);
    expect(() => hrCsvText(1.5)).toThrow(RangeError);
    expect(hrCsvText(0)).toBe(`${HR_CSV_COLUMNS.join(',')}\n`);
  });
});
