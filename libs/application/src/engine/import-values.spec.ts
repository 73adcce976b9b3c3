import { AttributePlurality } from '@meridian/domain';
import { changeConfirmed } from './import-confirmation';
import { convertAttribute, toStoredValue } from './import-values';
import type { SchemaAttribute } from './system-schema';

/** The pure parts of the import: value conversion and the confirming import's comparison. */
describe('import values', () => {
  it.each([
    ['String', 'Ann', 'Ann'],
    ['String', 42, '42'],
    ['String', true, 'true'],
    ['String', '', null],
    ['String', { a: 1 }, undefined],
    ['Integer', '42', 42],
    ['Integer', ' -7 ', -7],
    ['Integer', 3.5, undefined],
    ['Integer', 'abc', undefined],
    ['Integer', '9007199254740993', undefined],
    ['Decimal', '3.25', 3.25],
    ['Decimal', 1e3, 1000],
    ['Decimal', '1,5', undefined],
    ['Boolean', 'Yes', true],
    ['Boolean', '0', false],
    ['Boolean', 1, true],
    ['Boolean', 'maybe', undefined],
    ['DateTime', '2024-03-01', '2024-03-01T00:00:00.000Z'],
    ['DateTime', '2024-03-01T10:00:00+02:00', '2024-03-01T08:00:00.000Z'],
    ['DateTime', '20240301100000Z', '2024-03-01T10:00:00.000Z'],
    ['DateTime', '2024-02-30', undefined],
    ['DateTime', 1709280000000, undefined],
    ['Guid', '{0F8FAD5B-D9CB-469F-A165-70867728950E}', '0f8fad5b-d9cb-469f-a165-70867728950e'],
    ['Guid', 'not-a-guid', undefined],
    ['Reference', 'CN=Ann,OU=People', 'CN=Ann,OU=People'],
    ['Reference', 17, '17'],
    ['Binary', 'AAEC', 'AAEC'],
    ['Binary', 5, undefined],
  ] as const)('%s %j → %j', (type, raw, expected) => {
    expect(toStoredValue(type, raw)).toEqual(expected);
  });

  it('keeps the valid values of a multi-valued attribute, and no value of an over-full single-valued one', () => {
    expect(convertAttribute('Integer', true, ['1', 'x', '', 2])).toEqual({ values: [1, 2], invalid: ['x'], tooMany: false });
    expect(convertAttribute('String', false, ['a', 'b'])).toEqual({ values: [], invalid: [], tooMany: true });
    expect(convertAttribute('String', false, ['a'])).toEqual({ values: ['a'], invalid: [], tooMany: false });
  });
});

describe('confirming import comparison', () => {
  const text: SchemaAttribute = {
    id: 1,
    objectTypeId: 1,
    name: 'mail',
    type: 'String',
    plurality: AttributePlurality.Multi,
    isExternalId: false,
    isSecondaryExternalId: false,
  };
  const date: SchemaAttribute = { ...text, id: 2, name: 'end', type: 'DateTime', plurality: AttributePlurality.Single };
  const ref: SchemaAttribute = { ...text, id: 3, name: 'member', type: 'Reference' };

  it.each([
    ['Add present', text, { a: 1, op: 'Add', v: ['a@x'] }, ['b@x', 'a@x'], true],
    ['Add missing', text, { a: 1, op: 'Add', v: ['c@x'] }, ['b@x', 'a@x'], false],
    ['Replace same set, other order, padded', text, { a: 1, op: 'Replace', v: [' a@x', 'b@x '] }, ['b@x', 'a@x'], true],
    ['Replace with a value too many held', text, { a: 1, op: 'Replace', v: ['a@x'] }, ['b@x', 'a@x'], false],
    ['Replace with nothing, nothing held', text, { a: 1, op: 'Replace', v: [] }, [], true],
    ['Remove absent', text, { a: 1, op: 'Remove', v: ['z@x'] }, ['a@x'], true],
    ['Remove still present', text, { a: 1, op: 'Remove', v: ['a@x'] }, ['a@x'], false],
    ['RemoveAll cleared', text, { a: 1, op: 'RemoveAll', v: [] }, [], true],
    ['RemoveAll still held', text, { a: 1, op: 'RemoveAll', v: [] }, ['a@x'], false],
    ['Date in another notation', date, { a: 2, op: 'Replace', v: ['2024-03-01T00:00:00Z'] }, ['2024-03-01T00:00:00.000Z'], true],
    ['Reference by DN, other case', ref, { a: 3, op: 'Replace', v: ['cn=ann,ou=people'] }, ['CN=Ann,OU=People'], true],
    ['Reference still a metaverse id', ref, { a: 3, op: 'Add', v: [], mv: ['mv-1'] }, [], false],
  ] as const)('%s', (_name, attribute, change, held, expected) => {
    expect(changeConfirmed(change as never, attribute, held, [])).toBe(expected);
  });

  it('matches a reference by the object its value resolved to', () => {
    const change = { a: 3, op: 'Replace' as const, v: ['5a0c6e36-0000-7000-8000-000000000001'] };
    expect(changeConfirmed(change, ref, ['CN=Ann'], ['5a0c6e36-0000-7000-8000-000000000001'])).toBe(true);
    expect(changeConfirmed(change, ref, ['CN=Ann'], [null])).toBe(false);
  });
});
