import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '@meridian/domain';
import { validateConnectorSettings } from '../connector-settings';
import { builtInConnectors } from '../builtin-connectors';
import { ConnectorRegistry } from '../connector-registry';
import { resolveConnectorFilePath } from './file-path';
import { FILE_CONNECTOR_SETTINGS, parseFileSettings } from './file-settings';
import { ColumnProfile, parseValue } from './value-types';

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return Object.keys((e as DomainError).validationErrors ?? {}).sort();
  }
  throw new Error('accepted');
}

describe('File (CSV) connector settings', () => {
  it('is registered as a built-in connector', () => {
    const registry = new ConnectorRegistry(builtInConnectors());
    expect(registry.require('file').displayName).toBe('File (CSV)');
  });

  it('declares the settings other components rely on, with their defaults', () => {
    expect(FILE_CONNECTOR_SETTINGS.map((s) => [s.name, s.type, s.required, s.defaultValue ?? null])).toEqual([
      ['filePath', 'FilePath', true, null],
      ['delimiter', 'String', false, ','],
      ['quote', 'String', false, '"'],
      ['encoding', 'Enum', false, 'utf-8'],
      ['multiValueDelimiter', 'String', false, '|'],
      ['objectType', 'String', false, 'person'],
      ['objectTypeColumn', 'String', false, null],
      ['mode', 'Enum', false, 'Import'],
      ['sampleRows', 'Integer', false, 1000],
    ]);
    expect(FILE_CONNECTOR_SETTINGS.every((s) => !s.secret && s.description.length > 20)).toBe(true);
    expect(FILE_CONNECTOR_SETTINGS.find((s) => s.name === 'sampleRows')).toMatchObject({ minimum: 1, maximum: 100000 });
  });

  it('passes the generic validation with defaults filled in, and the connector reads the result', () => {
    const { plain } = validateConnectorSettings(FILE_CONNECTOR_SETTINGS, {
      filePath: 'hr/people.csv',
      delimiter: '\t',
      mode: 'bidirectional',
    });
    expect(plain).toEqual({
      filePath: 'hr/people.csv',
      delimiter: '\t',
      quote: '"',
      encoding: 'utf-8',
      multiValueDelimiter: '|',
      objectType: 'person',
      objectTypeColumn: null,
      mode: 'Bidirectional',
      sampleRows: 1000,
    });
    expect(parseFileSettings(plain)).toEqual({
      filePath: 'hr/people.csv',
      delimiter: '\t',
      quote: '"',
      encoding: 'utf-8',
      nodeEncoding: 'utf8',
      writeBom: false,
      multiValueDelimiter: '|',
      objectType: 'person',
      objectTypeColumn: null,
      mode: 'Bidirectional',
      sampleRows: 1000,
    });
    expect(fieldsOf(() => validateConnectorSettings(FILE_CONNECTOR_SETTINGS, { encoding: 'utf-16', sampleRows: 0 }))).toEqual([
      'settings.encoding',
      'settings.filePath',
      'settings.sampleRows',
    ]);
  });

  it.each([
    [{ delimiter: '\\t' }, { delimiter: '\t' }],
    [{ encoding: 'LATIN1' }, { encoding: 'latin1', nodeEncoding: 'latin1', writeBom: false }],
    [{ encoding: 'utf-8-bom' }, { encoding: 'utf-8-bom', nodeEncoding: 'utf8', writeBom: true }],
    [{ mode: 'export' }, { mode: 'Export' }],
    [{ sampleRows: '50' }, { sampleRows: 50 }],
    [
      { objectTypeColumn: 'kind', objectType: null },
      { objectTypeColumn: 'kind', objectType: 'person' },
    ],
  ])('normalises %j', (input, expected) => {
    expect(parseFileSettings({ filePath: 'a.csv', ...input })).toMatchObject(expected);
  });

  it.each([
    [{ filePath: '' }, ['settings.filePath']],
    [{ delimiter: ';;' }, ['settings.delimiter']],
    [{ delimiter: '\n' }, ['settings.delimiter']],
    [{ quote: ',' }, ['settings.quote']],
    [{ quote: "''" }, ['settings.quote']],
    [{ encoding: 'utf-16' }, ['settings.encoding']],
    [{ mode: 'Sync' }, ['settings.mode']],
    [{ sampleRows: 0 }, ['settings.sampleRows']],
    [{ sampleRows: 100001 }, ['settings.sampleRows']],
    [{ objectType: '  ' }, ['settings.objectType']],
    [{ multiValueDelimiter: 'a\nb' }, ['settings.multiValueDelimiter']],
  ])('refuses %j naming the setting', (input, fields) => {
    expect(fieldsOf(() => parseFileSettings({ filePath: 'a.csv', ...input }))).toEqual(fields);
  });
});

describe('resolveConnectorFilePath', () => {
  let root: string;
  let outside: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'file-root-'));
    outside = await mkdtemp(join(tmpdir(), 'file-outside-'));
    await mkdir(join(root, 'hr'));
    await writeFile(join(root, 'hr', 'people.csv'), 'id\n');
    await writeFile(join(outside, 'secret.csv'), 'id\n');
    await symlink(join(outside, 'secret.csv'), join(root, 'file-link.csv'));
    await symlink(outside, join(root, 'dir-link'));
    await symlink(join(root, 'hr', 'people.csv'), join(root, 'inside-link.csv'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const refusal = async (relative: string): Promise<string> => {
    const error = await resolveConnectorFilePath(root, relative).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect(Object.keys((error as DomainError).validationErrors ?? {})).toEqual(['settings.filePath']);
    return (error as DomainError).message;
  };

  it('resolves paths inside the root, existing or not, and follows links that stay inside', async () => {
    const realRoot = await import('node:fs/promises').then((fs) => fs.realpath(root));
    expect(await resolveConnectorFilePath(root, 'hr/people.csv')).toBe(join(realRoot, 'hr', 'people.csv'));
    expect(await resolveConnectorFilePath(root, './hr/../hr/new.csv')).toBe(join(realRoot, 'hr', 'new.csv'));
    expect(await resolveConnectorFilePath(root, 'inside-link.csv')).toBe(join(realRoot, 'hr', 'people.csv'));
  });

  it.each([
    ['../secret.csv', /outside the connector-files root/],
    ['hr/../../secret.csv', /outside the connector-files root/],
    ['..', /outside the connector-files root/],
    ['.', /root itself/],
    ['/etc/passwd', /not absolute/],
    ['C:\\data\\people.csv', /not absolute/],
    ['file-link.csv', /symbolic link/],
    ['dir-link/secret.csv', /symbolic link/],
    ['dir-link/new.csv', /symbolic link/],
    ['missing-dir/people.csv', /directory .* does not exist/],
    ['', /required/],
    ['a\0b.csv', /NUL/],
  ])('refuses %j', async (relative, message) => {
    expect(await refusal(relative)).toMatch(message);
  });

  it('names the override field when resolving a run-profile override', async () => {
    const error = await resolveConnectorFilePath(root, '../x.csv', 'filePathOverride').catch((e: DomainError) => e);
    expect(Object.keys((error as DomainError).validationErrors ?? {})).toEqual(['filePathOverride']);
  });
});

describe('value parsing and type inference', () => {
  it.each([
    ['Integer', '42', 42],
    ['Integer', ' -7 ', -7],
    ['Integer', '007', 7],
    ['Integer', '1.5', undefined],
    ['Integer', '9007199254740993', undefined],
    ['Decimal', '1.5', 1.5],
    ['Decimal', '-2e3', -2000],
    ['Decimal', 'abc', undefined],
    ['Boolean', 'TRUE', true],
    ['Boolean', 'no', false],
    ['Boolean', '1', true],
    ['Boolean', '0', false],
    ['Boolean', 'maybe', undefined],
    ['DateTime', '2024-01-15', '2024-01-15T00:00:00.000Z'],
    ['DateTime', '2024-01-15T10:20:30Z', '2024-01-15T10:20:30.000Z'],
    ['DateTime', '2024-01-15T10:20:30.123+02:00', '2024-01-15T08:20:30.123Z'],
    ['DateTime', '2024-01-15 10:20', '2024-01-15T10:20:00.000Z'],
    ['DateTime', '2024-01-15T10:20:30+0100', '2024-01-15T09:20:30.000Z'],
    ['DateTime', '2024-02-30', undefined],
    ['DateTime', '15/01/2024', undefined],
    ['DateTime', '2024-01-15T25:00', undefined],
    ['Guid', '{8D8AC610-566D-4EF0-9C22-186B2A5ED793}', '8d8ac610-566d-4ef0-9c22-186b2a5ed793'],
    ['Guid', '8d8ac610566d4ef09c22186b2a5ed793', undefined],
    ['String', ' kept as is ', ' kept as is '],
    ['Reference', 'EMP000001', 'EMP000001'],
  ] as const)('parses %s %j', (type, raw, expected) => {
    expect(parseValue(type, raw)).toBe(expected);
  });

  it('accepts leap days only in leap years', () => {
    expect(parseValue('DateTime', '2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(parseValue('DateTime', '2023-02-29')).toBeUndefined();
  });

  it.each([
    [['1', '2', '-3'], 'Integer', 'Single'],
    [['1', '', '2'], 'Integer', 'Single'],
    [['1', '02'], 'String', 'Single'],
    [['1', '99999999999999999999'], 'String', 'Single'],
    [['true', 'False', 'YES', 'no'], 'Boolean', 'Single'],
    [['1', '0'], 'Integer', 'Single'],
    [['2024-01-01', '2024-01-02T10:00:00Z'], 'DateTime', 'Single'],
    [['6b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b'], 'Guid', 'Single'],
    [['a|b', 'c'], 'String', 'Multi'],
    [['1|2', '3'], 'Integer', 'Multi'],
    [['', ''], 'String', 'Single'],
    [['1', 'x'], 'String', 'Single'],
  ])('infers %j as %s %s', (values, type, plurality) => {
    const profile = new ColumnProfile('|');
    values.forEach((v) => profile.add(v));
    expect([profile.type, profile.plurality]).toEqual([type, plurality]);
  });

  it('tells complete unique columns apart', () => {
    const unique = new ColumnProfile('|');
    ['a', 'b', 'c'].forEach((v) => unique.add(v));
    const repeated = new ColumnProfile('|');
    ['a', 'a'].forEach((v) => repeated.add(v));
    const gap = new ColumnProfile('|');
    ['a', ''].forEach((v) => gap.add(v));
    expect([unique.uniqueAndComplete, repeated.uniqueAndComplete, gap.uniqueAndComplete]).toEqual([true, false, false]);
  });
});
