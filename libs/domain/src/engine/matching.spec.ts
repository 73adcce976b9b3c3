import { AttributeDataType } from '../metaverse/metaverse-types';
import { matchingValues } from './matching';
import type { EngineAttribute, MatchingRuleDef } from './sync-model';

const ATTRS: EngineAttribute[] = [
  { id: 1, name: 'employeeId', type: AttributeDataType.String, plurality: 'Single' },
  { id: 2, name: 'mail', type: AttributeDataType.String, plurality: 'Single' },
  { id: 3, name: 'proxyAddresses', type: AttributeDataType.String, plurality: 'Multi' },
  { id: 4, name: 'employeeNumber', type: AttributeDataType.Integer, plurality: 'Single' },
  { id: 5, name: 'hireDate', type: AttributeDataType.DateTime, plurality: 'Single' },
  { id: 6, name: 'objectGuid', type: AttributeDataType.Guid, plurality: 'Single' },
  { id: 7, name: 'enabled', type: AttributeDataType.Boolean, plurality: 'Single' },
];
const SCHEMA = new Map(ATTRS.map((a) => [a.id, a]));

const rule = (...csAttributeIds: number[]): MatchingRuleDef => ({
  id: 1,
  order: 1,
  csAttributeIds,
  mvAttributeId: 100,
  caseSensitive: false,
});

describe('matchingValues', () => {
  it.each<[string, number[], Record<number, unknown[]>, string[]]>([
    ['one attribute, trimmed', [1], { 1: ['  E-1001 '] }, ['E-1001']],
    ['case is kept (lookups lower-case it themselves)', [2], { 2: ['Ann.Lee@Example.com'] }, ['Ann.Lee@Example.com']],
    ['no value', [1], {}, []],
    ['whitespace-only is no value', [1], { 1: ['   '] }, []],
    [
      'every value of a multi-valued attribute, duplicates removed',
      [3],
      { 3: ['smtp:a@x.com', 'smtp:b@x.com', ' smtp:a@x.com'] },
      ['smtp:a@x.com', 'smtp:b@x.com'],
    ],
    [
      "several attributes, in the rule's order, duplicates across them removed",
      [2, 1, 3],
      { 1: ['E-1001'], 2: ['a@x.com'], 3: ['a@x.com', 'b@x.com'] },
      ['a@x.com', 'E-1001', 'b@x.com'],
    ],
    ['numbers as text', [4], { 4: [1001] }, ['1001']],
    ['numeric text as the number it is', [4], { 4: [' 007 '] }, ['7']],
    ['date-times in their stored form', [5], { 5: ['2024-03-01'] }, ['2024-03-01T00:00:00.000Z']],
    ['GUIDs lower-cased', [6], { 6: ['ABCDEF00-0000-4000-8000-00000000000A'] }, ['abcdef00-0000-4000-8000-00000000000a']],
    ['booleans as text', [7], { 7: ['yes'] }, ['true']],
    ['an attribute not in the schema is skipped', [99, 1], { 99: ['x'], 1: ['E-1'] }, ['E-1']],
    ['an attribute whose value is not of its type is skipped, the others still count', [4, 1], { 4: ['n/a'], 1: ['E-1'] }, ['E-1']],
  ])('%s', (_name, ids, values, expected) => {
    expect(matchingValues(rule(...ids), (id) => values[id] ?? [], SCHEMA)).toEqual(expected);
  });
});
