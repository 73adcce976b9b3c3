import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FileConnector } from './file.connector';

// The HR generator lives in @meridian/testing, which this library may not import (lint boundary), so
// the test runs its command-line wrapper: the same generator, in a child process.
const GENERATOR = resolve(__dirname, '../../../../tools/generate-hr-csv.js');
const REGISTER = resolve(__dirname, '../../../../tools/ts-register.js');
const ROWS = 200_000;

describe('FileConnector: streaming a large file', () => {
  let root: string;
  let fileSize: number;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'file-stream-'));
    execFileSync(process.execPath, [GENERATOR, String(ROWS), join(root, 'hr.csv')], { stdio: 'ignore' });
    fileSize = (await stat(join(root, 'hr.csv'))).size;
  }, 120_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('discovers the HR schema: employeeId as external ID, typed end date, manager as reference', async () => {
    const schema = await new FileConnector().discoverSchema({ settings: { filePath: 'hr.csv' }, filesRoot: root });
    expect(schema.objectTypes.map((t) => t.name)).toEqual(['person']);
    const attributes = schema.objectTypes[0].attributes;
    expect(attributes.map((a) => a.name)).toEqual([
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
    ]);
    expect(attributes.filter((a) => a.suggestedExternalId).map((a) => a.name)).toEqual(['employeeId']);
    expect(attributes.filter((a) => a.type !== 'String').map((a) => [a.name, a.type])).toEqual([
      ['employeeEndDate', 'DateTime'],
      ['manager', 'Reference'],
    ]);
    expect(attributes.every((a) => a.plurality === 'Single')).toBe(true);
  });

  it('imports every row in pages while retained heap stays far below the file size', () => {
    expect(fileSize).toBeGreaterThan(30 * 1024 * 1024);
    // Measured in a plain Node process: inside jest's sandbox parsing runs several times slower, and
    // the heap figures of a fresh process are not blurred by the test runner's own allocations.
    const script = `
      const { FileConnector } = require('@meridian/connectors');
      (async () => {
        const ctx = { settings: { filePath: 'hr.csv' }, filesRoot: process.env.HR_ROOT };
        gc();
        const baseline = process.memoryUsage().heapUsed;
        let retainedPeak = 0, objects = 0, errors = 0, pages = 0, last = null;
        for await (const page of new FileConnector().import(ctx, { mode: 'Full', pageSize: 1000 }).pages()) {
          pages++;
          objects += page.objects.length;
          errors += page.errors.length;
          last = page.objects[page.objects.length - 1].attributes;
          if (pages % 20 === 0) {
            gc();
            retainedPeak = Math.max(retainedPeak, process.memoryUsage().heapUsed - baseline);
          }
        }
        process.stdout.write(JSON.stringify({ objects, errors, pages, last, retainedPeak }));
      })().catch((error) => { console.error(error); process.exit(1); });`;
    const output = execFileSync(process.execPath, ['--expose-gc', '-r', REGISTER, '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, HR_ROOT: root },
      timeout: 110_000,
    });
    const result = JSON.parse(output) as {
      objects: number;
      errors: number;
      pages: number;
      last: Record<string, string>;
      retainedPeak: number;
    };
    expect({ objects: result.objects, errors: result.errors, pages: result.pages }).toEqual({
      objects: ROWS,
      errors: 0,
      pages: ROWS / 1000,
    });
    expect(result.last).toMatchObject({ employeeId: 'EMP200000', manager: 'EMP025000' });
    // Reading the file into memory would retain more than its size (as UTF-16 strings); streaming retains
    // little more than one page. A quarter of the file leaves ample room for allocator noise.
    expect(result.retainedPeak).toBeGreaterThan(0);
    expect(result.retainedPeak).toBeLessThan(fileSize / 4);
  }, 120_000);
});
