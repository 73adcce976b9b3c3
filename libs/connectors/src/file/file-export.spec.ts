import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { promises as fsp } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AttributeValue, ConnectorContext, ExportChange, ExportResult, ImportedObject, SelectedSchema } from '../connector.contract';
import { exportBatch } from '../export-batch';
import { FileConnector } from './file.connector';

const connector = new FileConnector();
const REGISTER = resolve(__dirname, '../../../../tools/ts-register.js');
/** A session of one batch, as every export was before sessions. */
const exportOnce = (context: ConnectorContext, batch: ExportChange[]): Promise<ExportResult[]> => exportBatch(connector, context, batch);
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-export-'));
});
afterEach(async () => {
  jest.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

/** The schema of most tests: the text of the file stays short. */
const SIMPLE: SelectedSchema = {
  objectTypes: [
    {
      name: 'person',
      externalIdAttribute: 'id',
      secondaryExternalIdAttribute: null,
      attributes: [
        { name: 'id', type: 'String', plurality: 'Single' },
        { name: 'name', type: 'String', plurality: 'Single' },
        { name: 'mail', type: 'String', plurality: 'Multi' },
      ],
    },
  ],
};

const FULL: SelectedSchema = {
  objectTypes: [
    {
      name: 'person',
      externalIdAttribute: 'id',
      secondaryExternalIdAttribute: null,
      attributes: [
        { name: 'id', type: 'String', plurality: 'Single' },
        { name: 'name', type: 'String', plurality: 'Single' },
        { name: 'age', type: 'Integer', plurality: 'Single' },
        { name: 'active', type: 'Boolean', plurality: 'Single' },
        { name: 'start', type: 'DateTime', plurality: 'Single' },
        { name: 'mail', type: 'String', plurality: 'Multi' },
      ],
    },
  ],
};

function ctx(settings: ConnectorContext['settings'] = {}, extra: Partial<ConnectorContext> = {}): ConnectorContext {
  return { settings: { filePath: 'out.csv', mode: 'Bidirectional', ...settings }, filesRoot: root, schema: SIMPLE, ...extra };
}

let nextId = 0;
const attrs = (
  values: Record<string, AttributeValue | AttributeValue[]>,
  operation: 'Replace' | 'Add' | 'Remove' | 'RemoveAll' = 'Replace',
) => Object.entries(values).map(([name, v]) => ({ name, operation, values: Array.isArray(v) ? v : [v] }));
const create = (values: Record<string, AttributeValue | AttributeValue[]>, objectType = 'person'): ExportChange => ({
  id: `pe-${++nextId}`,
  objectType,
  changeType: 'Create',
  externalId: null,
  attributes: attrs(values),
});
const update = (externalId: string, attributes: ExportChange['attributes'], objectType = 'person'): ExportChange => ({
  id: `pe-${++nextId}`,
  objectType,
  changeType: 'Update',
  externalId,
  attributes,
});
const remove = (externalId: string, objectType = 'person'): ExportChange => ({
  id: `pe-${++nextId}`,
  objectType,
  changeType: 'Delete',
  externalId,
  attributes: [],
});

const read = (name = 'out.csv') => readFile(join(root, name), 'utf8');

async function importAll(context: ConnectorContext): Promise<ImportedObject[]> {
  const objects: ImportedObject[] = [];
  for await (const page of connector.import(context, { mode: 'Full', pageSize: 100 }).pages()) {
    expect(page.errors).toEqual([]);
    objects.push(...page.objects);
  }
  return objects;
}

describe('FileConnector: export', () => {
  it('creates the file with a header when it does not exist and confirms each write with the external ID', async () => {
    const batch = [create({ id: 'E1', name: 'Ada', mail: ['a@x', 'b@x'], age: 36 }), create({ id: 'E2', name: 'Grace', active: true })];
    const results = await exportOnce(ctx({}, { schema: FULL }), batch);
    expect(results).toEqual([
      { id: batch[0].id, success: true, confirmed: true, externalId: 'E1', error: null },
      { id: batch[1].id, success: true, confirmed: true, externalId: 'E2', error: null },
    ]);
    // Every selected attribute has a column (so the confirming import finds them all), in schema order.
    expect(await read()).toBe('id,name,age,active,start,mail\nE1,Ada,36,,,a@x|b@x\nE2,Grace,,true,,\n');
  });

  it('updates and deletes rows by external ID, keeps other rows and column order, and adds new columns', async () => {
    await writeFile(join(root, 'out.csv'), 'name,id,mail\nAda,E1,a@x\nGrace,E2,g@x|h@x\nAlan,E3,t@x\n');
    const batch = [
      update('E2', [...attrs({ name: 'Grace Hopper', age: 85 }), ...attrs({ mail: ['i@x', 'g@x'] }, 'Add')]),
      update('E1', attrs({ mail: ['a@x'] }, 'Remove')),
      remove('E3'),
      update('E1', attrs({ name: [] }, 'RemoveAll')),
    ];
    const results = await exportOnce(ctx(), batch);
    expect(results.map((r) => [r.success, r.externalId, r.confirmed])).toEqual([
      [true, 'E2', true],
      [true, 'E1', true],
      [true, 'E3', true],
      [true, 'E1', true],
    ]);
    expect(await read()).toBe('name,id,mail,age\n,E1,,\nGrace Hopper,E2,g@x|h@x|i@x,85\n');
  });

  it('reports failures per change without stopping the others', async () => {
    await writeFile(join(root, 'out.csv'), 'id,name\nE1,Ada\n');
    const batch = [
      update('E404', attrs({ name: 'Nobody' })),
      create({ name: 'No ID' }),
      create({ id: 'G1' }, 'group'),
      update('E1', attrs({ id: 'E9' })),
      update('E1', attrs({ name: ['Two', 'Values'] })),
      create({ id: 'E2', mail: ['has|delimiter'] }),
      update('E1', attrs({ name: 'Ada Lovelace' })),
    ];
    const results = await exportOnce(ctx(), batch);
    expect(results.map((r) => r.success)).toEqual([false, false, false, false, false, false, true]);
    expect(results.slice(0, 6).every((r) => r.confirmed === false && typeof r.error === 'string')).toBe(true);
    expect(results[0].error).toBe('No row with id = "E404" to update.');
    expect(results[1].error).toMatch(/no value for its external ID attribute "id"/);
    expect(results[2].error).toMatch(/holds objects of type "person", not "group"/);
    expect(results[3].error).toMatch(/cannot be changed/);
    expect(results[4].error).toMatch(/Single-valued attribute "name"/);
    expect(results[5].error).toMatch(/multi-value delimiter/);
    expect(await read()).toBe('id,name,mail\nE1,Ada Lovelace,\n');
  });

  it('is safe to repeat: a Create of an existing ID rewrites that row, a Delete of a missing one succeeds', async () => {
    const first = [create({ id: 'E1', name: 'Ada' }), create({ id: 'E2', name: 'Grace' })];
    await exportOnce(ctx(), first);
    const again = await exportOnce(ctx(), [create({ id: 'E1', name: 'Ada' }), remove('E2'), remove('E2')]);
    expect(again.map((r) => r.success)).toEqual([true, true, true]);
    expect(await read()).toBe('id,name,mail\nE1,Ada,\n');
  });

  it('applies several changes to the same object in order', async () => {
    const results = await exportOnce(ctx(), [
      create({ id: 'E1', name: 'Ada' }),
      update('E1', attrs({ age: 36 })),
      remove('E1'),
      create({ id: 'E1', name: 'Ada II' }),
    ]);
    expect(results.map((r) => r.success)).toEqual([true, true, true, true]);
    expect(await read()).toBe('id,name,mail,age\nE1,Ada II,,\n');
  });

  it('round-trips: what export writes, import reads back with the same typed values', async () => {
    const values = {
      id: 'E1',
      name: 'Lovelace, "Ada"\nCountess',
      age: 36,
      active: false,
      start: '2024-01-15T00:00:00.000Z',
      mail: ['a@x', 'b@x'],
    };
    const context = ctx({ delimiter: ';', quote: "'" }, { schema: FULL });
    await exportOnce(context, [create(values), create({ id: 'E2', name: 'Line\rBreak' })]);
    const objects = await importAll(context);
    expect(objects.map((o) => o.attributes)).toEqual([values, { id: 'E2', name: 'Line\rBreak' }]);
  });

  it('writes in the configured encoding: a BOM for utf-8-bom, Latin-1 bytes for latin1 (refusing what Latin-1 cannot hold)', async () => {
    await exportOnce(ctx({ encoding: 'utf-8-bom' }), [create({ id: 'E1', name: 'Zoë' })]);
    const bom = await readFile(join(root, 'out.csv'));
    expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bom.subarray(3).toString('utf8')).toBe('id,name,mail\nE1,Zoë,\n');
    expect((await importAll(ctx({ encoding: 'utf-8' })))[0].attributes.name).toBe('Zoë');

    const results = await exportOnce(ctx({ filePath: 'latin.csv', encoding: 'latin1' }), [
      create({ id: 'E1', name: 'José Müller' }),
      create({ id: 'E2', name: 'Price €5' }),
    ]);
    expect(results.map((r) => r.success)).toEqual([true, false]);
    expect(results[1].error).toMatch(/Latin-1/);
    expect(await readFile(join(root, 'latin.csv'))).toEqual(Buffer.from('id,name,mail\nE1,José Müller,\n', 'latin1'));
    expect((await importAll(ctx({ filePath: 'latin.csv', encoding: 'latin1' })))[0].attributes.name).toBe('José Müller');
  });

  it('writes and keys rows by the object type column', async () => {
    const schema: SelectedSchema = {
      objectTypes: [
        {
          name: 'person',
          externalIdAttribute: 'id',
          secondaryExternalIdAttribute: null,
          attributes: [{ name: 'id', type: 'String', plurality: 'Single' }],
        },
        {
          name: 'group',
          externalIdAttribute: 'id',
          secondaryExternalIdAttribute: null,
          attributes: [
            { name: 'id', type: 'String', plurality: 'Single' },
            { name: 'members', type: 'Reference', plurality: 'Multi' },
          ],
        },
      ],
    };
    const context = ctx({ objectTypeColumn: 'type' }, { schema });
    await exportOnce(context, [create({ id: 'X1' }), create({ id: 'X1', members: ['X1'] }, 'group')]);
    expect(await read()).toBe('type,id,members\nperson,X1,\ngroup,X1,X1\n');
    const results = await exportOnce(context, [remove('X1', 'group'), create({ id: 'S1' }, 'server')]);
    expect(results.map((r) => r.success)).toEqual([true, false]);
    expect(results[1].error).toMatch(/"server" is not selected/);
    expect(await read()).toBe('type,id,members\nperson,X1,\n');
  });

  it('matches GUID external IDs ignoring case and braces', async () => {
    const schema: SelectedSchema = {
      objectTypes: [
        {
          name: 'person',
          externalIdAttribute: 'guid',
          secondaryExternalIdAttribute: null,
          attributes: [
            { name: 'guid', type: 'Guid', plurality: 'Single' },
            { name: 'name', type: 'String', plurality: 'Single' },
          ],
        },
      ],
    };
    await writeFile(join(root, 'out.csv'), 'guid,name\n{8D8AC610-566D-4EF0-9C22-186B2A5ED793},Ada\n');
    const [result] = await exportOnce(ctx({}, { schema }), [update('8d8ac610-566d-4ef0-9c22-186b2a5ed793', attrs({ name: 'Ada L.' }))]);
    expect(result.success).toBe(true);
    expect(await read()).toBe('guid,name\n{8D8AC610-566D-4EF0-9C22-186B2A5ED793},Ada L.\n');
  });

  it('leaves the original intact and removes the temporary file when the final rename fails', async () => {
    const original = 'id,name\nE1,Ada\n';
    await writeFile(join(root, 'out.csv'), original);
    jest.spyOn(fsp, 'rename').mockRejectedValueOnce(Object.assign(new Error('EXDEV: simulated rename failure'), { code: 'EXDEV' }));
    await expect(exportOnce(ctx(), [update('E1', attrs({ name: 'Changed' })), create({ id: 'E2' })])).rejects.toThrow(
      'simulated rename failure',
    );
    expect(await read()).toBe(original);
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it.each([
    ['the rows parked for the rewrite', (file: string) => file.endsWith('.rows.tmp'), 1],
    ['the new file', (file: string) => /\.[0-9a-f-]{36}\.tmp$/.test(file), 2],
  ])('leaves the original intact when writing %s fails half-way (e.g. disk full)', async (_, isTarget, failingWrite) => {
    const rows = Array.from({ length: 3500 }, (_, i) => `E${i},Name ${i},`);
    const original = `id,name,mail\n${rows.join('\n')}\n`;
    await writeFile(join(root, 'out.csv'), original);
    const realOpen = fsp.open.bind(fsp);
    const spy = jest.spyOn(fsp, 'open').mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
      const handle = await realOpen(...args);
      if (!isTarget(String(args[0]))) return handle;
      const write = handle.write.bind(handle) as (...a: unknown[]) => Promise<unknown>;
      let calls = 0;
      (handle as unknown as { write: (...a: unknown[]) => Promise<unknown> }).write = (...a: unknown[]) =>
        ++calls >= failingWrite
          ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
          : write(...a);
      return handle;
    });
    await expect(exportOnce(ctx(), [update('E3000', attrs({ name: 'Changed' }))])).rejects.toThrow('ENOSPC');
    expect(await read()).toBe(original);
    expect(await readdir(root)).toEqual(['out.csv']);
    spy.mockRestore();
    // The next export works normally.
    expect((await exportOnce(ctx(), [update('E3000', attrs({ name: 'Changed' }))]))[0].success).toBe(true);
    expect(await read()).toBe(original.replace('E3000,Name 3000,', 'E3000,Changed,'));
  });

  it('refuses to rewrite a file with a malformed row rather than lose it', async () => {
    const original = 'id,name\nE1,"Ada"x\nE2,Grace\n';
    await writeFile(join(root, 'out.csv'), original);
    await expect(exportOnce(ctx(), [update('E2', attrs({ name: 'G' }))])).rejects.toThrow(/line 2 is malformed/);
    expect(await read()).toBe(original);
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it('keeps the file permissions', async () => {
    await writeFile(join(root, 'out.csv'), 'id,name,mail\nE1,Ada,\n');
    await chmod(join(root, 'out.csv'), 0o640);
    await exportOnce(ctx(), [create({ id: 'E3', name: 'Alan' })]);
    expect((await stat(join(root, 'out.csv'))).mode & 0o777).toBe(0o640);
    expect(await read()).toBe('id,name,mail\nE1,Ada,\nE3,Alan,\n');
  });

  it('refuses to rewrite a file with a row of the wrong width (a new column would silently shift it)', async () => {
    const original = 'id,name\nE1,Ada,extra\nE2,Grace\n';
    await writeFile(join(root, 'out.csv'), original);
    await expect(exportOnce(ctx(), [create({ id: 'E3', name: 'Alan' })])).rejects.toThrow(/line 2 has 3 field\(s\) but the header has 2/);
    expect(await read()).toBe(original);
  });

  it('serialises concurrent exports to the same file so none is lost', async () => {
    const batches = Array.from({ length: 25 }, (_, i) => [create({ id: `E${i}`, name: `Person ${i}` })]);
    const results = await Promise.all(batches.map((b) => exportOnce(ctx(), b)));
    expect(results.flat().every((r) => r.success)).toBe(true);
    const ids = (await importAll(ctx())).map((o) => o.attributes.id).sort();
    expect(ids).toEqual(batches.map((_, i) => `E${i}`).sort());
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it('honours the file path override and refuses paths outside the root and exports in Import mode', async () => {
    await mkdir(join(root, 'runs'));
    await exportOnce(ctx({}, { filePathOverride: 'runs/today.csv' }), [create({ id: 'E1' })]);
    expect(await read('runs/today.csv')).toBe('id,name,mail\nE1,,\n');
    await expect(exportOnce(ctx({ filePath: '../escape.csv' }), [create({ id: 'E1' })])).rejects.toThrow(
      /outside the connector-files root/,
    );
    await expect(exportOnce(ctx({ filePath: '/tmp/escape.csv' }), [create({ id: 'E1' })])).rejects.toThrow(/not absolute/);
    await expect(exportOnce(ctx({ mode: 'Import' }), [create({ id: 'E1' })])).rejects.toThrow(/Import mode/);
    expect(await exportOnce(ctx(), [])).toEqual([]);
  });

  it('fails every change clearly when no schema with an external ID is given', async () => {
    const results = await exportOnce(ctx({}, { schema: undefined }), [create({ id: 'E1' })]);
    expect(results).toEqual([expect.objectContaining({ success: false, error: expect.stringMatching(/not selected/) })]);
    const noId: SelectedSchema = { objectTypes: [{ ...SIMPLE.objectTypes[0], externalIdAttribute: null }] };
    const [result] = await exportOnce(ctx({}, { schema: noId }), [create({ id: 'E1' })]);
    expect(result.error).toMatch(/no external ID attribute/);
    await expect(readdir(root)).resolves.toEqual([]);
  });
});

describe('FileConnector: export sessions', () => {
  const rowsOf = (text: string) => text.split('\n').filter((line) => line !== '');
  const isOutput = (file: string) => /\.out\.csv\.\d+\.[0-9a-f-]{36}\.tmp$/.test(file);

  it('writes 10,000 creates sent in 10 batches as one new file, renamed over the target once, at commit', async () => {
    const target = join(root, 'out.csv');
    await writeFile(target, 'id,name,mail\n');
    const before = await stat(target);
    const renames = jest.spyOn(fsp, 'rename');
    const opens = jest.spyOn(fsp, 'open');

    const session = await connector.openExport(ctx());
    for (let b = 0; b < 10; b++) {
      const batch = Array.from({ length: 1000 }, (_, i) =>
        create({ id: `N${b * 1000 + i}`, name: `Person ${b * 1000 + i}`, mail: [`p${b * 1000 + i}@x`] }),
      );
      const results = await session.write(batch);
      expect(results).toEqual(
        batch.map((c, i) => ({ id: c.id, success: true, confirmed: true, externalId: `N${b * 1000 + i}`, error: null })),
      );
      // Nothing reaches the target before commit.
      expect(await read()).toBe('id,name,mail\n');
      expect((await stat(target)).ino).toBe(before.ino);
    }
    expect(renames).not.toHaveBeenCalled();
    await session.commit();

    expect(renames).toHaveBeenCalledTimes(1);
    expect(renames.mock.calls[0][1]).toBe(target);
    expect(opens.mock.calls.filter(([file]) => isOutput(String(file)))).toHaveLength(1);
    expect((await stat(target)).ino).not.toBe(before.ino);
    const rows = rowsOf(await read());
    expect(rows).toHaveLength(10_001);
    expect(rows[0]).toBe('id,name,mail');
    expect(rows[1]).toBe('N0,Person 0,p0@x');
    expect(rows[10_000]).toBe('N9999,Person 9999,p9999@x');
    expect(new Set(rows.slice(1).map((r) => r.split(',')[0])).size).toBe(10_000);
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it('applies updates and deletes to rows of the file and to rows created earlier in the same session', async () => {
    await writeFile(join(root, 'out.csv'), 'id,name,mail\nE1,Ada,\nE2,Grace,\nE3,Alan,\n');
    const session = await connector.openExport(ctx());
    const first = await session.write([
      create({ id: 'N1', name: 'New' }),
      create({ id: 'N2', name: 'Gone soon' }),
      update('E1', attrs({ name: 'Ada L.' })),
    ]);
    const second = await session.write([
      update('N1', [...attrs({ name: 'New One' }), ...attrs({ mail: ['n@x'] }, 'Add')]),
      remove('E2'),
      remove('N2'),
      update('E3', attrs({ title: 'Dr' })),
      update('E2', attrs({ name: 'Deleted above' })),
    ]);
    expect([...first, ...second].map((r) => [r.success, r.externalId])).toEqual([
      [true, 'N1'],
      [true, 'N2'],
      [true, 'E1'],
      [true, 'N1'],
      [true, 'E2'],
      [true, 'N2'],
      [true, 'E3'],
      [false, 'E2'],
    ]);
    expect(second[4].error).toBe('No row with id = "E2" to update.');
    await session.commit();
    expect(await read()).toBe('id,name,mail,title\nE1,Ada L.,,\nE3,Alan,,Dr\nN1,New One,n@x,\n');
  });

  it('never duplicates a row: a Create of an ID in the file, or created earlier in the run or by an earlier run, updates that row', async () => {
    await writeFile(join(root, 'out.csv'), 'id,name,mail\nE1,Ada,\n');
    const session = await connector.openExport(ctx());
    const first = await session.write([create({ id: 'E1', name: 'Ada again' }), create({ id: 'N1', name: 'New' })]);
    const second = await session.write([create({ id: 'N1', name: 'New, repeated' })]);
    expect([...first, ...second].map((r) => [r.success, r.externalId, r.confirmed])).toEqual([
      [true, 'E1', true],
      [true, 'N1', true],
      [true, 'N1', true],
    ]);
    await session.commit();
    expect(await read()).toBe('id,name,mail\nE1,Ada again,\nN1,"New, repeated",\n');

    // The same run repeated (e.g. after a crash between commit and recording the results).
    const again = await exportOnce(ctx(), [create({ id: 'E1', name: 'Ada again' }), create({ id: 'N1', name: 'New, repeated' })]);
    expect(again.every((r) => r.success)).toBe(true);
    expect(await read()).toBe('id,name,mail\nE1,Ada again,\nN1,"New, repeated",\n');
  });

  it('succeeds at deleting a row that is not there and fails clearly at updating it, without touching the file', async () => {
    const original = 'id,name,mail\nE1,Ada,\n';
    await writeFile(join(root, 'out.csv'), original);
    const before = await stat(join(root, 'out.csv'));
    const session = await connector.openExport(ctx());
    const results = await session.write([remove('X9'), update('X9', attrs({ name: 'Nobody' }))]);
    expect(results).toEqual([
      { id: results[0].id, success: true, confirmed: true, externalId: 'X9', error: null },
      { id: results[1].id, success: false, confirmed: false, externalId: 'X9', error: 'No row with id = "X9" to update.' },
    ]);
    await session.commit();
    // Nothing to change, so the file is not rewritten.
    expect((await stat(join(root, 'out.csv'))).ino).toBe(before.ino);
    expect(await read()).toBe(original);
  });

  it('abort leaves the original untouched, removes what was staged, can be repeated, and frees the file for the next session', async () => {
    const original = 'id,name,mail\nE1,Ada,\nE2,Grace,\n';
    await writeFile(join(root, 'out.csv'), original);
    const session = await connector.openExport(ctx());
    await session.write([create({ id: 'N1' }), update('E1', attrs({ name: 'Changed' })), remove('E2')]);
    expect((await readdir(root)).length).toBeGreaterThan(1);
    await session.abort();
    await session.abort();
    expect(await read()).toBe(original);
    expect(await readdir(root)).toEqual(['out.csv']);
    await expect(session.write([create({ id: 'N2' })])).rejects.toThrow(/already been committed or aborted/);
    await expect(session.commit()).rejects.toThrow(/already been committed or aborted/);
    expect((await exportOnce(ctx(), [create({ id: 'N3' })]))[0].success).toBe(true);
    expect(await read()).toBe(`${original}N3,,\n`);
  });

  it('leaves the original file when the process dies before commit', async () => {
    const original = 'id,name,mail\nE1,Ada,\n';
    await writeFile(join(root, 'out.csv'), original);
    // A real crash: a separate process writes two batches and is killed before committing.
    const script = `
      const { FileConnector } = require('@meridian/connectors');
      (async () => {
        const ctx = { settings: { filePath: 'out.csv', mode: 'Bidirectional' }, filesRoot: process.env.EXPORT_ROOT, schema: ${JSON.stringify(SIMPLE)} };
        const session = await new FileConnector().openExport(ctx);
        for (const id of ['N1', 'N2']) {
          await session.write([{ id, objectType: 'person', changeType: 'Create', externalId: null, attributes: [{ name: 'id', operation: 'Replace', values: [id] }] }]);
        }
        await session.write([{ id: 'u', objectType: 'person', changeType: 'Update', externalId: 'E1', attributes: [{ name: 'name', operation: 'Replace', values: ['Changed'] }] }]);
        process.kill(process.pid, 'SIGKILL');
      })();`;
    const child = spawnSync(process.execPath, ['-r', REGISTER, '-e', script], {
      env: { ...process.env, EXPORT_ROOT: root },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    expect(await read()).toBe(original);
    // What the dead run staged stays behind under a hidden name; it is never mistaken for the file.
    const leftovers = (await readdir(root)).filter((f) => f !== 'out.csv');
    expect(leftovers).toEqual([expect.stringMatching(new RegExp(`^\\.out\\.csv\\.${child.pid}\\.[0-9a-f-]{36}\\.rows\\.tmp$`))]);
    expect(await read(leftovers[0])).toBe('["E1","Ada",""]\n["N1","",""]\n["N2","",""]\n');
    expect((await exportOnce(ctx(), [create({ id: 'N1' })]))[0].success).toBe(true);
    expect(await read()).toBe(`${original}N1,,\n`);
  }, 60_000);

  it('holds the file for the whole session: a second session starts only after the first ends, and sees its rows', async () => {
    const first = await connector.openExport(ctx());
    await first.write([create({ id: 'E1', name: 'Ada' })]);
    let secondOpened = false;
    const opening = connector.openExport(ctx()).then((s) => {
      secondOpened = true;
      return s;
    });
    await first.write([create({ id: 'E2', name: 'Grace' })]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(secondOpened).toBe(false);
    await first.commit();
    const second = await opening;
    expect(await second.write([update('E2', attrs({ name: 'Grace H.' })), create({ id: 'E1', name: 'Ada' })])).toEqual([
      expect.objectContaining({ success: true, externalId: 'E2' }),
      expect.objectContaining({ success: true, externalId: 'E1' }),
    ]);
    await second.commit();
    expect(await read()).toBe('id,name,mail\nE1,Ada,\nE2,Grace H.,\n');
  });

  it('refuses to commit over a file that something else changed during the session, and leaves that file', async () => {
    await writeFile(join(root, 'out.csv'), 'id,name,mail\nE1,Ada,\n');
    const session = await connector.openExport(ctx());
    await session.write([update('E1', attrs({ name: 'Ada L.' }))]);
    await writeFile(join(root, 'out.csv'), 'id,name,mail\nE1,Ada,\nE7,Written meanwhile,\n');
    await expect(session.commit()).rejects.toThrow(/changed by something else during the export/);
    await session.abort();
    expect(await read()).toBe('id,name,mail\nE1,Ada,\nE7,Written meanwhile,\n');
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it('refuses to commit after a write failed part-way, since that batch has no results', async () => {
    const realOpen = fsp.open.bind(fsp);
    jest.spyOn(fsp, 'open').mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
      const handle = await realOpen(...args);
      if (String(args[0]).endsWith('.rows.tmp')) {
        (handle as unknown as { write: () => Promise<never> }).write = () =>
          Promise.reject(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
      }
      return handle;
    });
    const session = await connector.openExport(ctx());
    await expect(session.write([create({ id: 'E1' })])).rejects.toThrow('EIO');
    await expect(session.commit()).rejects.toThrow(/one of its writes failed; nothing was written/);
    await session.abort();
    expect(await readdir(root)).toEqual([]);
  });
});
