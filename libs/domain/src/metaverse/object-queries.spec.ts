import { containsPattern, normaliseFilterValue, parseAttributeSelection, searchPatterns } from './object-queries';
import { AttributeDataType as T } from './metaverse-types';

describe('parseAttributeSelection', () => {
  it.each<[unknown, unknown]>([
    [undefined, { kind: 'none' }],
    ['', { kind: 'none' }],
    ['  ', { kind: 'none' }],
    ['*', { kind: 'all' }],
    [' * ', { kind: 'all' }],
    ['Email', { kind: 'named', names: ['Email'] }],
    ['Email, Display Name ,email', { kind: 'named', names: ['Email', 'Display Name'] }],
  ])('parses %p', (raw, expected) => expect(parseAttributeSelection(raw)).toEqual(expected));

  it.each<[unknown, RegExp]>([
    ['Email,,Department', /empty names/],
    ['Email,', /empty names/],
    ['*,Email', /cannot be combined/],
    [['Email'], /comma-separated/],
    [Array.from({ length: 101 }, (_, i) => `a${i}`).join(','), /at most 100/],
  ])('refuses %p', (raw, message) => {
    const result = parseAttributeSelection(raw);
    expect(result).toHaveProperty('error');
    expect((result as { error: string }).error).toMatch(message);
  });
});

describe('normaliseFilterValue', () => {
  it.each<[T, string, string]>([
    [T.String, ' Ada@Example.org ', 'Ada@Example.org'],
    [T.Integer, '0042', '42'],
    [T.LongNumber, '-9000000000', '-9000000000'],
    [T.Decimal, '1.50', '1.5'],
    [T.Boolean, 'TRUE', 'true'],
    [T.DateTime, '2024-02-10', '2024-02-10T00:00:00.000Z'],
    [T.Guid, '6F9619FF-8B86-D011-B42D-00C04FC964FF', '6f9619ff-8b86-d011-b42d-00c04fc964ff'],
    [T.Reference, '6F9619FF-8B86-D011-B42D-00C04FC964FF', '6f9619ff-8b86-d011-b42d-00c04fc964ff'],
  ])('%s %p → %p', (type, raw, value) => expect(normaliseFilterValue(type, raw)).toEqual({ value }));

  it.each<[T, string]>([
    [T.Integer, '1.5'],
    [T.Integer, 'abc'],
    [T.Integer, '99999999999999999'],
    [T.Decimal, '1,5'],
    [T.Boolean, 'yes'],
    [T.DateTime, 'tomorrow'],
    [T.Guid, 'abc'],
    [T.Reference, '123'],
  ])('refuses %s %p', (type, raw) => expect(normaliseFilterValue(type, raw)).toHaveProperty('error'));
});

describe('containsPattern', () => {
  it.each([
    ['ada', '%ada%'],
    ['50%', '%50\\%%'],
    ['a_b', '%a\\_b%'],
    ['back\\slash', '%back\\\\slash%'],
  ])('%p → %p', (term, pattern) => expect(containsPattern(term)).toBe(pattern));
});

describe('searchPatterns', () => {
  it.each<[string, string[]]>([
    ['lovelace', ['%lovelace%']],
    ['ada', ['%ada%']],
    ['a.b', ['a.b%', '% a.b%']],
    ['a.bc', ['%a.bc%']],
    ['ad', ['ad%', '% ad%']],
    ['k.', ['k.%', '% k.%']],
    ['a', ['a%', '% a%']],
    ['é', ['é%', '% é%']],
    ['_', ['%\\_%']],
    ['%', ['%\\%%']],
    ['5%', ['5\\%%', '% 5\\%%']],
  ])('%p → %p', (term, patterns) => expect(searchPatterns(term)).toEqual(patterns));
});
