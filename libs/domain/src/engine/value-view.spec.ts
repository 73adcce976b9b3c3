import { compileExpressionOrThrow } from '../expressions';
import { AttributeDataType } from '../metaverse/metaverse-types';
import type { EngineAttribute } from './sync-model';
import { ValueView } from './value-view';

const SCHEMA_LIST: EngineAttribute[] = [
  { id: 1, name: 'department', type: AttributeDataType.String, plurality: 'Single' },
  { id: 2, name: 'proxyAddresses', type: AttributeDataType.String, plurality: 'Multi' },
  { id: 3, name: 'startDate', type: AttributeDataType.DateTime, plurality: 'Single' },
  { id: 4, name: 'loginDates', type: AttributeDataType.DateTime, plurality: 'Multi' },
  { id: 5, name: 'employeeNumber', type: AttributeDataType.Integer, plurality: 'Single' },
  { id: 6, name: 'enabled', type: AttributeDataType.Boolean, plurality: 'Single' },
  { id: 7, name: 'notes', type: AttributeDataType.String, plurality: 'Single' },
];
const SCHEMA = new Map(SCHEMA_LIST.map((a) => [a.id, a]));

const CSO = {
  '1': ['Sales'],
  '2': ['smtp:ann@example.com', 'SMTP:a.lee@example.com'],
  '3': ['2024-03-01T00:00:00.000Z'],
  '4': ['2024-03-01T08:00:00.000Z', 'not a date'],
  '5': [42],
  '6': [false],
  '7': [],
  '99': ['not in the schema'],
};
const MVO = Object.fromEntries(Object.entries(CSO).map(([k, list]) => [k, list.map((v) => ({ v, s: 1, r: 10 }))]));

describe.each([
  ['a connector space object', ValueView.ofConnectorObject(CSO, SCHEMA)],
  ['a metaverse object', ValueView.ofMetaverseObject(MVO, SCHEMA)],
])('ValueView of %s', (_kind, view) => {
  it.each<[number, unknown]>([
    [1, 'Sales'],
    [2, ['smtp:ann@example.com', 'SMTP:a.lee@example.com']],
    [3, '2024-03-01T00:00:00.000Z'],
    [5, 42],
    [6, false],
    [7, undefined],
    [8, undefined],
    [99, 'not in the schema'],
  ])('scoping(%i) → %j (single-valued: the value; multi-valued: the list; absent or empty: undefined)', (id, expected) => {
    expect(view.scoping(id)).toEqual(expected);
  });

  it.each<[number, unknown[]]>([
    [1, ['Sales']],
    [2, ['smtp:ann@example.com', 'SMTP:a.lee@example.com']],
    [7, []],
    [8, []],
  ])('list(%i) → %j', (id, expected) => {
    expect(view.list(id)).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['department', 'Sales'],
    ['DEPARTMENT', 'Sales'],
    ['ProxyAddresses', ['smtp:ann@example.com', 'SMTP:a.lee@example.com']],
    ['employeeNumber', 42],
    ['enabled', false],
    ['notes', null],
    ['unknown', null],
  ])('expression(%j) → %j (by name, ignoring case; absent: null)', (name, expected) => {
    expect(view.expression(name)).toEqual(expected);
  });

  it('gives DateTime values to expressions as Dates (text that is not a date stays text)', () => {
    expect(view.expression('startdate')).toEqual(new Date('2024-03-01T00:00:00.000Z'));
    expect(view.expression('loginDates')).toEqual([new Date('2024-03-01T08:00:00.000Z'), 'not a date']);
    // Scoping reads the stored text.
    expect(view.scoping(3)).toBe('2024-03-01T00:00:00.000Z');
  });

  it('serves as the cs[…] source of a compiled expression', () => {
    const expression = compileExpressionOrThrow(
      'Upper(cs["Department"]) + "-" + ToString(cs["EMPLOYEENUMBER"]) + "-" + ToString(IsNullOrEmpty(cs["notes"]))',
    );
    expect(expression.evaluate({ cs: view.expression })).toBe('SALES-42-true');
    expect(compileExpressionOrThrow('Join(cs["proxyAddresses"], ";")').evaluate({ cs: view.expression })).toBe(
      'smtp:ann@example.com;SMTP:a.lee@example.com',
    );
  });
});

describe('ValueView names', () => {
  it('looks names up in a shared lower-cased index when one is given', () => {
    const byName = new Map<string, EngineAttribute>([['dept', SCHEMA.get(1)!]]);
    const view = ValueView.ofConnectorObject(CSO, SCHEMA, byName);
    expect(view.expression('Dept')).toBe('Sales');
    expect(view.expression('department')).toBeNull();
  });

  it('reads the values as they are at the time of the lookup', () => {
    const values: Record<string, unknown[]> = { '1': ['Sales'] };
    const view = ValueView.ofConnectorObject(values, SCHEMA);
    values['1'] = ['Legal'];
    expect([view.scoping(1), view.expression('department')]).toEqual(['Legal', 'Legal']);
  });
});
