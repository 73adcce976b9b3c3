import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttributeValue, ConnectorContext, ExportChange, ImportedObject, SelectedSchema } from '../connector.contract';
import { FileConnector } from './file.connector';

const connector = new FileConnector();
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
  objectTypes: [{
    name: 'person', externalIdAttribute: 'id', secondaryExternalIdAttribute: null,
    attributes: [{ name: 'id', type: 'String', plurality: 'Single' }, { name: 'name', type: 'String', plurality: 'Single' }, { name: 'mail', type: 'String', plurality: 'Multi' }],
  }],
};

const FULL: SelectedSchema = {
  objectTypes: [{
    name: 'person', externalIdAttribute: 'id', secondaryExternalIdAttribute: null,
    attributes: [
      { name: 'id', type: 'String', plurality: 'Single' },
      { name: 'name', type: 'String', plurality: 'Single' },
      { name: 'age', type: 'Integer', plurality: 'Single' },
      { name: 'active', type: 'Boolean', plurality: 'Single' },
      { name: 'start', type: 'DateTime', plurality: 'Single' },
      { name: 'mail', type: 'String', plurality: 'Multi' },
    ],
  }],
};

function ctx(settings: ConnectorContext['settings'] = {}, extra: Partial<ConnectorContext> = {}): ConnectorContext {
  return { settings: { filePath: 'out.csv', mode: 'Bidirectional', ...settings }, filesRoot: root, schema: SIMPLE, ...extra };
}

let nextId = 0;
const attrs = (values: Record<string, AttributeValue | AttributeValue[]>, operation: 'Replace' | 'Add' | 'Remove' | 'RemoveAll' = 'Replace') =>
  Object.entries(values).map(([name, v]) => ({ name, operation, values: Array.isArray(v) ? v : [v] }));
const create = (values: Record<string, AttributeValue | AttributeValue[]>, objectType = 'person'): ExportChange =>
  ({ id: `pe-${++nextId}`, objectType, changeType: 'Create', externalId: null, attributes: attrs(values) });
const update = (externalId: string, attributes: ExportChange['attributes'], objectType = 'person'): ExportChange =>
  ({ id: `pe-${++nextId}`, objectType, changeType: 'Update', externalId, attributes });
const remove = (externalId: string, objectType = 'person'): ExportChange => ({ id: `pe-${++nextId}`, objectType, changeType: 'Delete', externalId, attributes: [] });

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
    const results = await connector.export(ctx({}, { schema: FULL }), batch);
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
    const results = await connector.export(ctx(), batch);
    expect(results.map((r) => [r.success, r.externalId, r.confirmed])).toEqual([[true, 'E2', true], [true, 'E1', true], [true, 'E3', true], [true, 'E1', true]]);
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
    const results = await connector.export(ctx(), batch);
    expect(results.map((r) => r.success)).toEqual([false, false, false, false, false, false, true]);
    expect(results.slice(0, 6).every((r) => r.confirmed === false && typeof r.error === 'string')).toBe(true);
    expect(results[0].error).toMatch(/No row has external ID "E404"/);
    expect(results[1].error).toMatch(/no value for its external ID attribute "id"/);
    expect(results[2].error).toMatch(/holds objects of type "person", not "group"/);
    expect(results[3].error).toMatch(/cannot be changed/);
    expect(results[4].error).toMatch(/Single-valued attribute "name"/);
    expect(results[5].error).toMatch(/multi-value delimiter/);
    expect(await read()).toBe('id,name,mail\nE1,Ada Lovelace,\n');
  });

  it('is safe to repeat: a Create of an existing ID rewrites that row, a Delete of a missing one succeeds', async () => {
    const first = [create({ id: 'E1', name: 'Ada' }), create({ id: 'E2', name: 'Grace' })];
    await connector.export(ctx(), first);
    const again = await connector.export(ctx(), [create({ id: 'E1', name: 'Ada' }), remove('E2'), remove('E2')]);
    expect(again.map((r) => r.success)).toEqual([true, true, true]);
    expect(await read()).toBe('id,name,mail\nE1,Ada,\n');
  });

  it('applies several changes to the same object in order', async () => {
    const results = await connector.export(ctx(), [create({ id: 'E1', name: 'Ada' }), update('E1', attrs({ age: 36 })), remove('E1'), create({ id: 'E1', name: 'Ada II' })]);
    expect(results.map((r) => r.success)).toEqual([true, true, true, true]);
    expect(await read()).toBe('id,name,mail,age\nE1,Ada II,,\n');
  });

  it('round-trips: what export writes, import reads back with the same typed values', async () => {
    const values = { id: 'E1', name: 'Lovelace, "Ada"\nCountess', age: 36, active: false, start: '2024-01-15T00:00:00.000Z', mail: ['a@x', 'b@x'] };
    const context = ctx({ delimiter: ';', quote: "'" }, { schema: FULL });
    await connector.export(context, [create(values), create({ id: 'E2', name: 'Line\rBreak' })]);
    const objects = await importAll(context);
    expect(objects.map((o) => o.attributes)).toEqual([values, { id: 'E2', name: 'Line\rBreak' }]);
  });

  it('writes in the configured encoding: a BOM for utf-8-bom, Latin-1 bytes for latin1 (refusing what Latin-1 cannot hold)', async () => {
    await connector.export(ctx({ encoding: 'utf-8-bom' }), [create({ id: 'E1', name: 'Zoë' })]);
    const bom = await readFile(join(root, 'out.csv'));
    expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bom.subarray(3).toString('utf8')).toBe('id,name,mail\nE1,Zoë,\n');
    expect((await importAll(ctx({ encoding: 'utf-8' })))[0].attributes.name).toBe('Zoë');

    const results = await connector.export(ctx({ filePath: 'latin.csv', encoding: 'latin1' }), [create({ id: 'E1', name: 'José Müller' }), create({ id: 'E2', name: 'Price €5' })]);
    expect(results.map((r) => r.success)).toEqual([true, false]);
    expect(results[1].error).toMatch(/Latin-1/);
    expect(await readFile(join(root, 'latin.csv'))).toEqual(Buffer.from('id,name,mail\nE1,José Müller,\n', 'latin1'));
    expect((await importAll(ctx({ filePath: 'latin.csv', encoding: 'latin1' })))[0].attributes.name).toBe('José Müller');
  });

  it('writes and keys rows by the object type column', async () => {
    const schema: SelectedSchema = {
      objectTypes: [
        { name: 'person', externalIdAttribute: 'id', secondaryExternalIdAttribute: null, attributes: [{ name: 'id', type: 'String', plurality: 'Single' }] },
        { name: 'group', externalIdAttribute: 'id', secondaryExternalIdAttribute: null, attributes: [{ name: 'id', type: 'String', plurality: 'Single' }, { name: 'members', type: 'Reference', plurality: 'Multi' }] },
      ],
    };
    const context = ctx({ objectTypeColumn: 'type' }, { schema });
    await connector.export(context, [create({ id: 'X1' }), create({ id: 'X1', members: ['X1'] }, 'group')]);
    expect(await read()).toBe('type,id,members\nperson,X1,\ngroup,X1,X1\n');
    const results = await connector.export(context, [remove('X1', 'group'), create({ id: 'S1' }, 'server')]);
    expect(results.map((r) => r.success)).toEqual([true, false]);
    expect(results[1].error).toMatch(/"server" is not selected/);
    expect(await read()).toBe('type,id,members\nperson,X1,\n');
  });

  it('matches GUID external IDs ignoring case and braces', async () => {
    const schema: SelectedSchema = { objectTypes: [{ name: 'person', externalIdAttribute: 'guid', secondaryExternalIdAttribute: null, attributes: [{ name: 'guid', type: 'Guid', plurality: 'Single' }, { name: 'name', type: 'String', plurality: 'Single' }] }] };
    await writeFile(join(root, 'out.csv'), 'guid,name\n{8D8AC610-566D-4EF0-9C22-186B2A5ED793},Ada\n');
    const [result] = await connector.export(ctx({}, { schema }), [update('8d8ac610-566d-4ef0-9c22-186b2a5ed793', attrs({ name: 'Ada L.' }))]);
    expect(result.success).toBe(true);
    expect(await read()).toBe('guid,name\n{8D8AC610-566D-4EF0-9C22-186B2A5ED793},Ada L.\n');
  });

  it('leaves the original intact and removes the temporary file when the final rename fails', async () => {
    const original = 'id,name\nE1,Ada\n';
    await writeFile(join(root, 'out.csv'), original);
    jest.spyOn(fsp, 'rename').mockRejectedValueOnce(Object.assign(new Error('EXDEV: simulated rename failure'), { code: 'EXDEV' }));
    await expect(connector.export(ctx(), [update('E1', attrs({ name: 'Changed' })), create({ id: 'E2' })])).rejects.toThrow('simulated rename failure');
    expect(await read()).toBe(original);
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it('leaves the original intact when writing fails half-way (e.g. disk full)', async () => {
    const rows = Array.from({ length: 3500 }, (_, i) => `E${i},Name ${i},`);
    const original = `id,name,mail\n${rows.join('\n')}\n`;
    await writeFile(join(root, 'out.csv'), original);
    const realOpen = fsp.open.bind(fsp);
    jest.spyOn(fsp, 'open').mockImplementationOnce(async (...args: Parameters<typeof fsp.open>) => {
      const handle = await realOpen(...args);
      const write = handle.write.bind(handle) as (...a: unknown[]) => Promise<unknown>;
      let calls = 0;
      (handle as unknown as { write: (...a: unknown[]) => Promise<unknown> }).write = (...a: unknown[]) =>
        ++calls >= 2 ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })) : write(...a);
      return handle;
    });
    await expect(connector.export(ctx(), [update('E3000', attrs({ name: 'Changed' }))])).rejects.toThrow('ENOSPC');
    expect(await read()).toBe(original);
    expect(await readdir(root)).toEqual(['out.csv']);
    // The next export works normally.
    expect((await connector.export(ctx(), [update('E3000', attrs({ name: 'Changed' }))]))[0].success).toBe(true);
    expect(await read()).toBe(original.replace('E3000,Name 3000,', 'E3000,Changed,'));
  });

  it('refuses to rewrite a file with a malformed row rather than lose it', async () => {
    const original = 'id,name\nE1,"Ada"x\nE2,Grace\n';
    await writeFile(join(root, 'out.csv'), original);
    await expect(connector.export(ctx(), [update('E2', attrs({ name: 'G' }))])).rejects.toThrow(/line 2 is malformed/);
    expect(await read()).toBe(original);
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it('keeps the file permissions', async () => {
    await writeFile(join(root, 'out.csv'), 'id,name,mail\nE1,Ada,\n');
    await chmod(join(root, 'out.csv'), 0o640);
    await connector.export(ctx(), [create({ id: 'E3', name: 'Alan' })]);
    expect((await stat(join(root, 'out.csv'))).mode & 0o777).toBe(0o640);
    expect(await read()).toBe('id,name,mail\nE1,Ada,\nE3,Alan,\n');
  });

  it('refuses to rewrite a file with a row of the wrong width (a new column would silently shift it)', async () => {
    const original = 'id,name\nE1,Ada,extra\nE2,Grace\n';
    await writeFile(join(root, 'out.csv'), original);
    await expect(connector.export(ctx(), [create({ id: 'E3', name: 'Alan' })])).rejects.toThrow(/line 2 has 3 field\(s\) but the header has 2/);
    expect(await read()).toBe(original);
  });

  it('serialises concurrent exports to the same file so none is lost', async () => {
    const batches = Array.from({ length: 25 }, (_, i) => [create({ id: `E${i}`, name: `Person ${i}` })]);
    const results = await Promise.all(batches.map((b) => connector.export(ctx(), b)));
    expect(results.flat().every((r) => r.success)).toBe(true);
    const ids = (await importAll(ctx())).map((o) => o.attributes.id).sort();
    expect(ids).toEqual(batches.map((_, i) => `E${i}`).sort());
    expect(await readdir(root)).toEqual(['out.csv']);
  });

  it('honours the file path override and refuses paths outside the root and exports in Import mode', async () => {
    await mkdir(join(root, 'runs'));
    await connector.export(ctx({}, { filePathOverride: 'runs/today.csv' }), [create({ id: 'E1' })]);
    expect(await read('runs/today.csv')).toBe('id,name,mail\nE1,,\n');
    await expect(connector.export(ctx({ filePath: '../escape.csv' }), [create({ id: 'E1' })])).rejects.toThrow(/outside the connector-files root/);
    await expect(connector.export(ctx({ filePath: '/tmp/escape.csv' }), [create({ id: 'E1' })])).rejects.toThrow(/not absolute/);
    await expect(connector.export(ctx({ mode: 'Import' }), [create({ id: 'E1' })])).rejects.toThrow(/Import mode/);
    expect(await connector.export(ctx(), [])).toEqual([]);
  });

  it('fails every change clearly when no schema with an external ID is given', async () => {
    const results = await connector.export(ctx({}, { schema: undefined }), [create({ id: 'E1' })]);
    expect(results).toEqual([expect.objectContaining({ success: false, error: expect.stringMatching(/not selected/) })]);
    const noId: SelectedSchema = { objectTypes: [{ ...SIMPLE.objectTypes[0], externalIdAttribute: null }] };
    const [result] = await connector.export(ctx({}, { schema: noId }), [create({ id: 'E1' })]);
    expect(result.error).toMatch(/no external ID attribute/);
    await expect(readdir(root)).resolves.toEqual([]);
  });
});
