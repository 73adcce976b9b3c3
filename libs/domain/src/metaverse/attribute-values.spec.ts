import { coerceAttributeValue, displayNameFrom, typedAttributeValue, TypedAttributeValue } from './attribute-values';
import { AttributeDataType as T } from './metaverse-types';

describe('coerceAttributeValue', () => {
  const attr = (type: T) => ({ name: 'A', type });

  it.each<[T, unknown, unknown]>([
    [T.String, '  Ada  ', 'Ada'],
    [T.Text, 'long text', 'long text'],
    [T.Integer, 2_147_483_647, 2_147_483_647],
    [T.Integer, -2_147_483_648, -2_147_483_648],
    [T.LongNumber, 9_007_199_254_740_991, 9_007_199_254_740_991],
    [T.Decimal, 1.25, 1.25],
    [T.Boolean, false, false],
    [T.DateTime, '2024-02-10', '2024-02-10T00:00:00.000Z'],
    [T.DateTime, '2025-06-30T17:00:00+02:00', '2025-06-30T15:00:00.000Z'],
    [T.Guid, ' 6F9619FF-8B86-D011-B42D-00C04FC964FF ', '6f9619ff-8b86-d011-b42d-00c04fc964ff'],
    [T.Reference, '6F9619FF-8B86-D011-B42D-00C04FC964FF', '6f9619ff-8b86-d011-b42d-00c04fc964ff'],
    [T.Binary, 'AQID', 'AQID'],
  ])('accepts %s %p as %p', (type, input, stored) => {
    expect(coerceAttributeValue(attr(type), input)).toEqual({ ok: true, value: stored });
  });

  it.each<[T, unknown, RegExp]>([
    [T.String, 12, /must be text/],
    [T.String, { text: 'Ada' }, /must be text/],
    [T.String, 'x'.repeat(4001), /at most 4000/],
    [T.Integer, 2_147_483_648, /from -2147483648 to 2147483647/],
    [T.Integer, 1.5, /must be a number/],
    [T.Integer, '12', /must be a number/],
    [T.LongNumber, 1e300, /must be a number/],
    [T.Decimal, Number.NaN, /must be a number/],
    [T.Boolean, 'yes', /true or false/],
    [T.DateTime, '1', /ISO 8601/],
    [T.DateTime, '2024-13-45', /ISO 8601/],
    [T.DateTime, 'next Monday', /ISO 8601/],
    [T.Guid, 'not-a-guid', /GUID/],
    [T.Reference, '-'.repeat(36), /metaverse object id/],
    [T.Binary, 'not base64!', /base64/],
  ])('refuses %s %p', (type, input, message) => {
    const result = coerceAttributeValue(attr(type), input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });
});

describe('typedAttributeValue', () => {
  const empty: TypedAttributeValue = {
    stringValue: null,
    dateTimeValue: null,
    intValue: null,
    guidValue: null,
    boolValue: null,
    referenceValueId: null,
  };
  it.each<[T, unknown, Partial<TypedAttributeValue>]>([
    [T.String, 'Ada', { stringValue: 'Ada' }],
    [T.Text, 'x', { stringValue: 'x' }],
    [T.Binary, 'AQID', { stringValue: 'AQID' }],
    [T.Decimal, 1.5, { stringValue: '1.5' }],
    [T.Integer, 42, { intValue: 42 }],
    [T.LongNumber, 9_000_000_000, { intValue: 9_000_000_000 }],
    [T.Boolean, true, { boolValue: true }],
    [T.DateTime, '2024-02-10T00:00:00.000Z', { dateTimeValue: '2024-02-10T00:00:00.000Z' }],
    [T.Guid, '6f9619ff-8b86-d011-b42d-00c04fc964ff', { guidValue: '6f9619ff-8b86-d011-b42d-00c04fc964ff' }],
    [T.Reference, '6f9619ff-8b86-d011-b42d-00c04fc964ff', { referenceValueId: '6f9619ff-8b86-d011-b42d-00c04fc964ff' }],
    [T.Integer, '42', { stringValue: '42' }],
    [T.String, null, {}],
  ])('puts a %s value %p in its typed field', (type, v, expected) => {
    expect(typedAttributeValue(type, v)).toEqual({ ...empty, ...expected });
  });
});

describe('displayNameFrom', () => {
  it.each<[unknown, unknown, string | null]>([
    ['Ada Lovelace', 'ada', 'Ada Lovelace'],
    [undefined, 'ada', 'ada'],
    ['', 'ada', 'ada'],
    [null, undefined, null],
  ])('Display Name %p, Account Name %p → %p', (display, account, expected) => {
    expect(displayNameFrom(display, account)).toBe(expected);
  });
});
