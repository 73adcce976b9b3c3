import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '@meridian/domain';
import type { ConnectorContext, ImportPage, SelectedSchema } from '../connector.contract';
import { FileConnector } from './file.connector';

const connector = new FileConnector();
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-connector-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function ctx(settings: ConnectorContext['settings'], extra: Partial<ConnectorContext> = {}): ConnectorContext {
  return { settings: { filePath: 'people.csv', ...settings }, filesRoot: root, ...extra };
}

async function put(name: string, content: string | Buffer): Promise<void> {
  await mkdir(join(root, name, '..'), { recursive: true });
  await writeFile(join(root, name), content);
}

async function pagesOf(context: ConnectorContext, pageSize = 1000): Promise<ImportPage[]> {
  const pages: ImportPage[] = [];
  for await (const page of connector.import(context, { mode: 'Full', pageSize }).pages()) pages.push(page);
  return pages;
}

async function importAll(context: ConnectorContext, pageSize = 1000) {
  const pages = await pagesOf(context, pageSize);
  return { objects: pages.flatMap((p) => p.objects), errors: pages.flatMap((p) => p.errors), pages };
}

async function validationFields(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return (error as DomainError).validationErrors ?? {};
}

const person = (
  attributes: SelectedSchema['objectTypes'][number]['attributes'],
  externalIdAttribute = 'id',
  name = 'person',
): SelectedSchema => ({ objectTypes: [{ name, externalIdAttribute, secondaryExternalIdAttribute: null, attributes }] });

describe('FileConnector: schema discovery', () => {
  it('turns the header into attributes and infers types from the sample rows', async () => {
    await put(
      'people.csv',
      [
        'name,employeeId,age,active,startDate,lastLogin,objectGuid,notes,code',
        'Ada,E1,36,true,2024-01-15,2024-05-01T10:00:00Z,6b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b,,007',
        'Grace,E2,,FALSE,2023-12-01,2024-05-02T08:30:00+02:00,{8D8AC610-566D-4EF0-9C22-186B2A5ED793},hi,12',
        'Alan,E3,41,yes,2020-02-29,2024-05-03 09:15,00000000-0000-0000-0000-000000000001,x,3',
      ].join('\n'),
    );
    const schema = await connector.discoverSchema(ctx({}));
    expect(schema.objectTypes).toHaveLength(1);
    const [type] = schema.objectTypes;
    expect(type.name).toBe('person');
    const byName = Object.fromEntries(type.attributes.map((a) => [a.name, a]));
    expect(type.attributes.map((a) => a.name)).toEqual([
      'name',
      'employeeId',
      'age',
      'active',
      'startDate',
      'lastLogin',
      'objectGuid',
      'notes',
      'code',
    ]);
    expect(Object.fromEntries(type.attributes.map((a) => [a.name, a.type]))).toEqual({
      name: 'String',
      employeeId: 'String',
      age: 'Integer',
      active: 'Boolean',
      startDate: 'DateTime',
      lastLogin: 'DateTime',
      objectGuid: 'Guid',
      notes: 'String',
      code: 'String', // leading zeros are kept as text
    });
    expect(type.attributes.every((a) => a.plurality === 'Single' && a.writability === 'ReadWrite')).toBe(true);
    // employeeId is complete and unique and has an ID-like name; "name" comes first but does not look like an ID.
    expect(type.attributes.filter((a) => a.suggestedExternalId).map((a) => a.name)).toEqual(['employeeId']);
    expect(byName.notes.suggestedExternalId).toBe(false);
  });

  it('does not take a column with empty or repeated values as external ID, and falls back to the first complete unique one', async () => {
    await put('people.csv', 'userId,mail,dept\n,a@x,Sales\nu2,b@x,Sales\nu3,c@x,HR\n');
    const [type] = (await connector.discoverSchema(ctx({}))).objectTypes;
    expect(type.attributes.find((a) => a.suggestedExternalId)?.name).toBe('mail');
  });

  it('marks a column with the multi-value delimiter as Multi and infers the type of its parts', async () => {
    await put('people.csv', 'id,mail,groupIds,managerOf\n1,a@x|b@x,1|2,\n2,c@x,3,\n3,,,\n');
    const [type] = (await connector.discoverSchema(ctx({}))).objectTypes;
    const byName = Object.fromEntries(type.attributes.map((a) => [a.name, a]));
    expect(byName.mail).toMatchObject({ plurality: 'Multi', type: 'String' });
    expect(byName.groupIds).toMatchObject({ plurality: 'Multi', type: 'Integer' });
    expect(byName.managerOf).toMatchObject({ plurality: 'Single', type: 'String' });
    expect(byName.id).toMatchObject({ suggestedExternalId: true, type: 'Integer' });

    await put('semi.csv', 'id,mail\n1,a@x;b@x\n');
    const [semi] = (await connector.discoverSchema(ctx({ filePath: 'semi.csv', multiValueDelimiter: ';' }))).objectTypes;
    expect(semi.attributes[1]).toMatchObject({ name: 'mail', plurality: 'Multi' });
  });

  it('infers a reference for a column whose values are external IDs of other rows (e.g. manager)', async () => {
    await put('people.csv', 'employeeId,manager,copyOfId\nE1,,E1\nE2,E1,E2\nE3,E1,E3\nE4,E2,E4\n');
    const [type] = (await connector.discoverSchema(ctx({}))).objectTypes;
    const types = Object.fromEntries(type.attributes.map((a) => [a.name, a.type]));
    expect(types).toEqual({ employeeId: 'String', manager: 'Reference', copyOfId: 'String' });
  });

  it('reads only sampleRows rows for inference', async () => {
    await put('people.csv', 'id,value\n1,10\n2,20\n3,not a number\n');
    const sampled = await connector.discoverSchema(ctx({ sampleRows: 2 }));
    expect(sampled.objectTypes[0].attributes[1].type).toBe('Integer');
    const all = await connector.discoverSchema(ctx({}));
    expect(all.objectTypes[0].attributes[1].type).toBe('String');
  });

  it('finds one object type per distinct value of the object type column', async () => {
    await put('people.csv', 'kind,id,mail,members\nperson,p1,a@x,\ngroup,g1,,p1|p2\nperson,p2,b@x,\n');
    const schema = await connector.discoverSchema(ctx({ objectTypeColumn: 'kind' }));
    expect(schema.objectTypes.map((t) => t.name)).toEqual(['person', 'group']);
    const group = schema.objectTypes[1];
    expect(group.attributes.map((a) => a.name)).toEqual(['id', 'mail', 'members']);
    expect(group.attributes.find((a) => a.name === 'members')).toMatchObject({ plurality: 'Multi', type: 'Reference' });
    expect(group.attributes.find((a) => a.suggestedExternalId)?.name).toBe('id');
  });

  it('gives header-only files String attributes and refuses empty files, bad headers and unknown type columns, naming the setting', async () => {
    await put('people.csv', 'id,name\n');
    const [type] = (await connector.discoverSchema(ctx({}))).objectTypes;
    expect(type.attributes.map((a) => [a.name, a.type, a.suggestedExternalId])).toEqual([
      ['id', 'String', true],
      ['name', 'String', false],
    ]);

    await put('empty.csv', '');
    expect(Object.keys(await validationFields(connector.discoverSchema(ctx({ filePath: 'empty.csv' }))))).toEqual(['settings.filePath']);
    await put('dup.csv', 'id,Name,name\n');
    expect((await validationFields(connector.discoverSchema(ctx({ filePath: 'dup.csv' }))))['settings.filePath'][0]).toMatch(/twice/);
    expect(Object.keys(await validationFields(connector.discoverSchema(ctx({ objectTypeColumn: 'type' }))))).toEqual([
      'settings.objectTypeColumn',
    ]);
    expect(Object.keys(await validationFields(connector.discoverSchema(ctx({ filePath: 'missing.csv' }))))).toEqual(['settings.filePath']);
    expect(Object.keys(await validationFields(connector.discoverSchema(ctx({ delimiter: ';;' }))))).toEqual(['settings.delimiter']);
  });
});

describe('FileConnector: encodings, delimiters and quotes', () => {
  it('reads UTF-8 with and without a byte order mark identically', async () => {
    const text = 'id,name\n1,Zoë Müller\n';
    await put('plain.csv', text);
    await put('bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    for (const filePath of ['plain.csv', 'bom.csv']) {
      for (const encoding of ['utf-8', 'utf-8-bom']) {
        const { objects } = await importAll(ctx({ filePath, encoding }));
        expect(objects.map((o) => o.attributes)).toEqual([{ id: '1', name: 'Zoë Müller' }]);
      }
      const [type] = (await connector.discoverSchema(ctx({ filePath }))).objectTypes;
      expect(type.attributes[0].name).toBe('id'); // not "\ufeffid"
    }
  });

  it('reads Latin-1 (é, ü) when told, and a UTF-8 BOM wins over the setting', async () => {
    await put('latin.csv', Buffer.from('id,name\n1,José Müller\n2,Renée\n', 'latin1'));
    const { objects } = await importAll(ctx({ filePath: 'latin.csv', encoding: 'latin1' }));
    expect(objects.map((o) => o.attributes.name)).toEqual(['José Müller', 'Renée']);
    const wrong = await importAll(ctx({ filePath: 'latin.csv', encoding: 'utf-8' }));
    expect(wrong.objects[0].attributes.name).not.toBe('José Müller');

    await put('bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,name\n1,José\n')]));
    const bom = await importAll(ctx({ filePath: 'bom.csv', encoding: 'latin1' }));
    expect(bom.objects[0].attributes).toEqual({ id: '1', name: 'José' });
  });

  it.each([
    ['semicolon', ';', '"', 'id;name;note\n1;"Lovelace; Ada";"say ""hi"""\n'],
    ['tab (escaped)', '\\t', '"', 'id\tname\tnote\n1\t"Lovelace; Ada"\t"say ""hi"""\n'],
    ['tab (literal)', '\t', '"', 'id\tname\tnote\n1\tLovelace; Ada\t"say ""hi"""\n'],
    ['pipe with single quotes', '|', "'", "id|name|note\n1|'Lovelace; Ada'|'say \"hi\"'\n"],
    ['comma, CRLF line endings', ',', '"', 'id,name,note\r\n1,"Lovelace; Ada","say ""hi"""\r\n'],
  ])('reads %s', async (_label, delimiter, quote, content) => {
    await put('people.csv', content);
    const { objects, errors } = await importAll(ctx({ delimiter, quote, multiValueDelimiter: '#' }));
    expect(errors).toEqual([]);
    expect(objects.map((o) => o.attributes)).toEqual([{ id: '1', name: 'Lovelace; Ada', note: 'say "hi"' }]);
  });

  it('keeps line breaks inside quoted fields and counts lines correctly after them', async () => {
    await put('people.csv', 'id,address\n1,"Line one\nLine two"\n2,short\n3,"a\nb\nc"\n4,x,extra\n');
    const { objects, errors } = await importAll(ctx({}));
    expect(objects.map((o) => [o.source, o.attributes.address])).toEqual([
      ['line 2', 'Line one\nLine two'],
      ['line 4', 'short'],
      ['line 5', 'a\nb\nc'],
    ]);
    expect(errors).toEqual([expect.objectContaining({ source: 'line 8', errorType: 'MalformedRow' })]);
  });
});

describe('FileConnector: full import', () => {
  it('yields Upsert objects with raw string values when no schema is given; empty cells are absent', async () => {
    await put('people.csv', 'id,name,mail\n1,Ada,\n2,,g@x\n');
    const { objects, errors } = await importAll(ctx({}));
    expect(errors).toEqual([]);
    expect(objects).toEqual([
      { objectType: 'person', change: 'Upsert', source: 'line 2', attributes: { id: '1', name: 'Ada' }, fingerprint: expect.any(String) },
      { objectType: 'person', change: 'Upsert', source: 'line 3', attributes: { id: '2', mail: 'g@x' }, fingerprint: expect.any(String) },
    ]);
  });

  it('fingerprints each row by the header and its raw fields: equal exactly when the row and the header are', async () => {
    const fingerprints = async (content: string) => {
      await put('people.csv', content);
      return (await importAll(ctx({}))).objects.map((o) => o.fingerprint);
    };
    const [ada, grace] = await fingerprints('id,name,mail\n1,Ada,a@x\n2,Grace,g@x\n');
    expect(ada).not.toBe(grace);
    // The same rows elsewhere in the file, quoted differently: the same fields, the same fingerprints.
    expect(await fingerprints('id,name,mail\n2,"Grace",g@x\n\n1,Ada,"a@x"\n')).toEqual([grace, ada]);
    // Any field changed, an empty field filled, or the header renamed or reordered: another fingerprint.
    const [changed] = await fingerprints('id,name,mail\n1,Ada,b@x\n');
    const [renamed] = await fingerprints('id,name,email\n1,Ada,a@x\n');
    const [swapped] = await fingerprints('id,mail,name\n1,Ada,a@x\n');
    expect(new Set([ada, changed, renamed, swapped]).size).toBe(4);
    // Fields are delimited unambiguously (no two rows with different fields share a fingerprint).
    const [a, b] = await fingerprints('id,name,mail\n1,"a,b",c\n1,a,"b,c"\n');
    expect(a).not.toBe(b);
  });

  it('types values per the selected schema and reports unparseable values, keeping the object without them', async () => {
    await put(
      'people.csv',
      [
        'id,age,active,start,guid,mail,scores,ignored',
        '1,36,yes,2024-01-15,{8D8AC610-566D-4EF0-9C22-186B2A5ED793},a@x|b@x,1|2,zzz',
        '2,thirty,maybe,2024-02-30,not-a-guid,c@x,3|x|4,zzz',
      ].join('\n'),
    );
    const schema = person([
      { name: 'id', type: 'Integer', plurality: 'Single' },
      { name: 'age', type: 'Integer', plurality: 'Single' },
      { name: 'active', type: 'Boolean', plurality: 'Single' },
      { name: 'start', type: 'DateTime', plurality: 'Single' },
      { name: 'guid', type: 'Guid', plurality: 'Single' },
      { name: 'MAIL', type: 'String', plurality: 'Multi' },
      { name: 'scores', type: 'Integer', plurality: 'Multi' },
    ]);
    const { objects, errors } = await importAll(ctx({}, { schema }));
    expect(objects.map((o) => o.attributes)).toEqual([
      {
        id: 1,
        age: 36,
        active: true,
        start: '2024-01-15T00:00:00.000Z',
        guid: '8d8ac610-566d-4ef0-9c22-186b2a5ed793',
        MAIL: ['a@x', 'b@x'],
        scores: [1, 2],
      },
      { id: 2, MAIL: ['c@x'], scores: [3, 4] },
    ]);
    expect(errors.map((e) => [e.source, e.errorType, e.externalId, e.message.match(/attribute "(\w+)"/)?.[1]])).toEqual([
      ['line 3', 'ImportAttributeValueError', '2', 'age'],
      ['line 3', 'ImportAttributeValueError', '2', 'active'],
      ['line 3', 'ImportAttributeValueError', '2', 'start'],
      ['line 3', 'ImportAttributeValueError', '2', 'guid'],
      ['line 3', 'ImportAttributeValueError', '2', 'scores'],
    ]);
  });

  it('turns malformed rows into per-object errors with their line number and goes on', async () => {
    await put(
      'people.csv',
      [
        'id,name,mail', // 1
        '1,Ada,a@x', // 2
        '2,Grace', // 3: too few fields
        '', // 4: empty line, skipped
        '3,Alan,t@x,extra', // 5: too many fields
        '4,"Edsger"x,e@x', // 6: invalid closing quote
        '5,Barbara,b@x', // 7
        ',,', // 8: only empty fields, skipped
        '6,"Donald,d@x', // 9: quote never closed (swallows the rest of the file)
        '7,Never,n@x', // 10
      ].join('\n'),
    );
    const schema = person([
      { name: 'id', type: 'String', plurality: 'Single' },
      { name: 'name', type: 'String', plurality: 'Single' },
    ]);
    const { objects, errors } = await importAll(ctx({}, { schema }));
    expect(objects.map((o) => [o.source, o.attributes.id])).toEqual([
      ['line 2', '1'],
      ['line 7', '5'],
    ]);
    expect(errors.map((e) => [e.source, e.errorType, e.externalId])).toEqual([
      ['line 3', 'MalformedRow', '2'],
      ['line 5', 'MalformedRow', '3'],
      ['line 6', 'MalformedRow', null],
      ['line 9', 'MalformedRow', null],
    ]);
    expect(errors[0].message).toMatch(/2 field\(s\) but the header has 3/);
    expect(errors[2].message).toMatch(/quote/i);
    expect(errors[3].message).toMatch(/quote/i);
  });

  it('reports a quote left open once, at the line it starts on, and resumes after the quote that closes it', async () => {
    await put('people.csv', 'id,name\n1,a\n2,"b\n3,c\n4,"d"\n5,e\n');
    const { objects, errors } = await importAll(ctx({}));
    expect(objects.map((o) => [o.source, o.attributes.id])).toEqual([
      ['line 2', '1'],
      ['line 6', '5'],
    ]);
    expect(errors.map((e) => [e.source, e.errorType])).toEqual([['line 3', 'MalformedRow']]);
  });

  it('keeps objects and errors in file order with exact line numbers across many pages', async () => {
    // Every third row has a stray quote (a parser error), every fifth the wrong width (a connector error).
    const lines = Array.from({ length: 3000 }, (_, i) => (i % 3 === 1 ? `${i},x"y` : i % 5 === 4 ? `${i}` : `${i},ok`));
    await put('people.csv', `id,name\n${lines.join('\n')}\n`);
    const pages = await pagesOf(ctx({}), 100);
    const seen = pages
      .flatMap((p) => [...p.objects.map((o) => o.source!), ...p.errors.map((e) => e.source)])
      .map((s) => Number(s.replace('line ', '')))
      .sort((a, b) => a - b);
    expect(seen).toEqual(lines.map((_, i) => i + 2));
    const errorLines = pages.flatMap((p) => p.errors.map((e) => Number(e.source.replace('line ', ''))));
    expect(errorLines).toEqual(
      lines
        .map((_, i) => i)
        .filter((i) => i % 3 === 1 || i % 5 === 4)
        .map((i) => i + 2),
    );
    const objects = pages.flatMap((p) => p.objects);
    expect(objects.every((o) => o.source === `line ${Number(o.attributes.id) + 2}`)).toBe(true);
    expect(pages.every((p) => p.objects.length + p.errors.length <= 100)).toBe(true);
  });

  it('pages by pageSize, objects and errors together', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => `${i + 1},n${i + 1}`);
    await put('people.csv', `id,name\n${rows.join('\n')}\n`);
    for (const [pageSize, sizes] of [
      [1, Array(10).fill(1)],
      [3, [3, 3, 3, 1]],
      [5, [5, 5]],
      [10, [10]],
      [11, [10]],
    ] as Array<[number, number[]]>) {
      const pages = await pagesOf(ctx({}), pageSize);
      expect({ pageSize, sizes: pages.map((p) => p.objects.length) }).toEqual({ pageSize, sizes });
      expect(pages.flatMap((p) => p.objects.map((o) => o.attributes.id))).toEqual(rows.map((r) => r.split(',')[0]));
    }
    await put('bad.csv', 'id,name\n1\n2\n3,c\n');
    const pages = await pagesOf(ctx({ filePath: 'bad.csv' }), 2);
    expect(pages.map((p) => [p.objects.length, p.errors.length])).toEqual([
      [0, 2],
      [1, 0],
    ]);

    await put('header-only.csv', 'id,name\n');
    expect(await pagesOf(ctx({ filePath: 'header-only.csv' }))).toEqual([]);
  });

  it('takes the object type from a column and rejects rows of unselected or missing types', async () => {
    await put('people.csv', 'type,id,name\nperson,p1,Ada\ngroup,g1,Admins\nprinter,x1,Laser\n,z1,Nobody\nPERSON,p2,Grace\n');
    const schema: SelectedSchema = {
      objectTypes: [
        {
          name: 'person',
          externalIdAttribute: 'id',
          secondaryExternalIdAttribute: null,
          attributes: [
            { name: 'id', type: 'String', plurality: 'Single' },
            { name: 'name', type: 'String', plurality: 'Single' },
          ],
        },
        {
          name: 'group',
          externalIdAttribute: 'id',
          secondaryExternalIdAttribute: null,
          attributes: [{ name: 'id', type: 'String', plurality: 'Single' }],
        },
      ],
    };
    const { objects, errors } = await importAll(ctx({ objectTypeColumn: 'type' }, { schema }));
    expect(objects.map((o) => [o.objectType, o.attributes])).toEqual([
      ['person', { id: 'p1', name: 'Ada' }],
      ['group', { id: 'g1' }],
      ['person', { id: 'p2', name: 'Grace' }],
    ]);
    expect(errors.map((e) => [e.source, e.errorType])).toEqual([
      ['line 4', 'CouldNotMatchObjectType'],
      ['line 5', 'CouldNotMatchObjectType'],
    ]);
    expect(errors[0].message).toMatch(/printer/);

    const untyped = await importAll(ctx({ objectTypeColumn: 'type' }));
    expect(untyped.objects.map((o) => o.objectType)).toEqual(['person', 'group', 'printer', 'PERSON']);
    expect(untyped.objects[0].attributes).toEqual({ id: 'p1', name: 'Ada' });
  });

  it('fails clearly when selected columns are missing or the fixed object type is not selected', async () => {
    await put('people.csv', 'id,name\n1,Ada\n');
    await expect(
      pagesOf(
        ctx(
          {},
          {
            schema: person([
              { name: 'id', type: 'String', plurality: 'Single' },
              { name: 'mail', type: 'String', plurality: 'Single' },
            ]),
          },
        ),
      ),
    ).rejects.toThrow(/no column for selected attribute\(s\) person\.mail/);
    await expect(pagesOf(ctx({}, { schema: person([{ name: 'id', type: 'String', plurality: 'Single' }], 'id', 'user') }))).rejects.toThrow(
      /"person" .* not among the selected object types/,
    );
  });

  it('honours the run profile file path override, confined to the root like the setting', async () => {
    await put('people.csv', 'id\n1\n');
    await put('exports/today.csv', 'id\n2\n3\n');
    const { objects } = await importAll(ctx({}, { filePathOverride: 'exports/today.csv' }));
    expect(objects.map((o) => o.attributes.id)).toEqual(['2', '3']);
    expect(Object.keys(await validationFields(pagesOf(ctx({}, { filePathOverride: '../people.csv' }))))).toEqual(['filePathOverride']);
  });

  it('stops between pages when the signal is aborted', async () => {
    await put('people.csv', `id\n${Array.from({ length: 100 }, (_, i) => i).join('\n')}\n`);
    const controller = new AbortController();
    const seen: number[] = [];
    const run = async () => {
      for await (const page of connector.import(ctx({}, { signal: controller.signal }), { mode: 'Full', pageSize: 10 }).pages()) {
        seen.push(page.objects.length);
        if (seen.length === 2) controller.abort(new Error('cancelled by test'));
      }
    };
    await expect(run()).rejects.toThrow('cancelled by test');
    expect(seen).toEqual([10, 10]);
  });

  it('refuses delta imports, bad page sizes, and imports in Export mode', async () => {
    await put('people.csv', 'id\n1\n');
    expect(() => connector.import(ctx({}), { mode: 'Delta', pageSize: 10, watermark: null })).toThrow(/does not support delta import/);
    expect(() => connector.import(ctx({}), { mode: 'Full', pageSize: 0 })).toThrow(DomainError);
    expect(() => connector.import(ctx({ mode: 'Export' }), { mode: 'Full', pageSize: 10 })).toThrow(/Export mode/);
    expect(connector.import(ctx({}), { mode: 'Full', pageSize: 10 }).watermark()).toBeNull();
    await expect(pagesOf(ctx({ filePath: 'nope.csv' }))).rejects.toThrow(/does not exist/);
  });
});

describe('FileConnector: capabilities and connection test', () => {
  it('declares its capabilities and narrows them by mode', () => {
    expect(connector.type).toBe('File');
    expect(connector.displayName).toBe('File (CSV)');
    expect(connector.capabilities).toEqual({
      fullImport: true,
      deltaImport: false,
      export: true,
      schemaDiscovery: true,
      paging: true,
      autoConfirmExport: true,
    });
    expect(connector.effectiveCapabilities({ mode: 'Import' })).toMatchObject({ fullImport: true, export: false });
    expect(connector.effectiveCapabilities({})).toMatchObject({ fullImport: true, export: false });
    expect(connector.effectiveCapabilities({ mode: 'Export' })).toMatchObject({ fullImport: false, export: true });
    expect(connector.effectiveCapabilities({ mode: 'Bidirectional' })).toMatchObject({
      fullImport: true,
      export: true,
      deltaImport: false,
    });
  });

  it('reports what it found for a readable file', async () => {
    await put('people.csv', 'id,name,mail\n1,Ada,a@x\n');
    const result = await connector.testConnection(ctx({}));
    expect(result.success).toBe(true);
    expect(result.message).toMatch(/Found "people.csv" \(\d+ bytes\) with 3 column\(s\): id, name, mail\./);
    expect(result.details).toMatchObject({ columns: ['id', 'name', 'mail'], exists: true });
  });

  it('fails without throwing for a missing file, a path outside the root, or invalid settings', async () => {
    expect(await connector.testConnection(ctx({}))).toMatchObject({ success: false, message: expect.stringMatching(/does not exist/) });
    expect(await connector.testConnection(ctx({ filePath: '../etc/passwd' }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/outside the connector-files root/),
    });
    expect(await connector.testConnection(ctx({ delimiter: 'ab' }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/Delimiter/),
    });
    await mkdir(join(root, 'dir.csv'));
    expect(await connector.testConnection(ctx({ filePath: 'dir.csv' }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/not a file/),
    });
  });

  it('in Export mode only needs a writable directory', async () => {
    const result = await connector.testConnection(ctx({ mode: 'Export', filePath: 'out/new.csv' }));
    expect(result).toMatchObject({ success: false, message: expect.stringMatching(/directory .* does not exist/) });
    await mkdir(join(root, 'out'));
    expect(await connector.testConnection(ctx({ mode: 'Export', filePath: 'out/new.csv' }))).toMatchObject({
      success: true,
      message: expect.stringMatching(/first export will create it/),
    });
  });

  it('refuses symbolic links that leave the root', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'file-connector-outside-'));
    try {
      await writeFile(join(outside, 'secret.csv'), 'id\n1\n');
      await symlink(join(outside, 'secret.csv'), join(root, 'link.csv'));
      const result = await connector.testConnection(ctx({ filePath: 'link.csv' }));
      expect(result).toMatchObject({ success: false, message: expect.stringMatching(/symbolic link/) });
      await expect(pagesOf(ctx({ filePath: 'link.csv' }))).rejects.toThrow(/outside the connector-files root/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
