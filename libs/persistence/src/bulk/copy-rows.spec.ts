import { encodeCopyLine, encodeCopyValue, escapeCopyJson, escapeCopyText, PreEncoded, quoteIdentifier } from './copy-rows';
import { canonicalAttributesJson, connectorSpaceContent, connectorSpaceContentHash } from './connector-space';
import { uuidV7 } from './uuid-v7';

describe('COPY text encoding', () => {
  it.each([
    ['plain', 'Ada Lovelace', 'Ada Lovelace'],
    ['empty string (not NULL)', '', ''],
    ['tab', 'a\tb', 'a\\tb'],
    ['newline', 'a\nb', 'a\\nb'],
    ['carriage return', 'a\r\nb', 'a\\r\\nb'],
    ['backslash', 'C:\\temp\\new', 'C:\\\\temp\\\\new'],
    ['the text \\N is not NULL', '\\N', '\\\\N'],
    ['unicode passes through', 'Zoë 山田 🚀', 'Zoë 山田 🚀'],
  ])('escapes %s', (_, input, expected) => {
    expect(encodeCopyValue(input)).toBe(expected);
  });

  it.each([
    ['null', null, '\\N'],
    ['undefined', undefined, '\\N'],
    ['true', true, 't'],
    ['false', false, 'f'],
    ['integer', -42, '-42'],
    ['decimal', 3.25, '3.25'],
    ['bigint', 9007199254740993n, '9007199254740993'],
    ['date', new Date(Date.UTC(2024, 1, 29, 12, 0, 0, 5)), '2024-02-29T12:00:00.005Z'],
    ['bytes', Buffer.from([0, 1, 0xfe, 0xff]), '\\\\x0001feff'],
    ['Uint8Array view', new Uint8Array([9, 8, 7, 6]).subarray(1, 3), '\\\\x0807'],
    ['JSON object', { a: 'say "hi"\n', b: [1, null] }, '{"a":"say \\\\"hi\\\\"\\\\n","b":[1,null]}'],
    ['pre-encoded', new PreEncoded('already\\tdone'), 'already\\tdone'],
  ])('encodes %s', (_, input, expected) => {
    expect(encodeCopyValue(input as never)).toBe(expected);
  });

  it('refuses what PostgreSQL cannot store or COPY cannot express', () => {
    expect(() => escapeCopyText('a\u0000b')).toThrow(/NUL/);
    expect(() => encodeCopyValue(Number.NaN)).toThrow(TypeError);
    expect(() => encodeCopyValue(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => encodeCopyValue(new Date(Number.NaN))).toThrow(TypeError);
  });

  it('escapes JSON text as the text of any other field, backslashes being all JSON can hold', () => {
    for (const value of [{ a: 'plain' }, { a: 'tab\there', b: 'line\nbreak\r', c: 'back\\slash "quoted"', d: '\u0001\u0000' }, ['Zoë']]) {
      const json = JSON.stringify(value);
      expect(escapeCopyJson(json)).toBe(escapeCopyText(json));
    }
    expect(escapeCopyJson('{"a":"x\\\\y"}')).toBe('{"a":"x\\\\\\\\y"}');
  });

  it('joins a line with tabs and ends it with a newline', () => {
    expect(encodeCopyLine([1, 'a\tb', null, true])).toBe('1\ta\\tb\t\\N\tt\n');
  });

  it('quotes identifiers part by part', () => {
    expect(quoteIdentifier('connected_system_object')).toBe('"connected_system_object"');
    expect(quoteIdentifier('public.my "odd" table')).toBe('"public"."my ""odd"" table"');
  });
});

describe('content hash', () => {
  it('does not depend on the order of attribute keys', () => {
    expect(canonicalAttributesJson({ 12: ['a'], 3: ['b'] })).toBe('{"3":["b"],"12":["a"]}');
    expect(canonicalAttributesJson({ zeta: [1], alpha: [2], 7: [3] })).toBe('{"7":[3],"alpha":[2],"zeta":[1]}');
    const a = canonicalAttributesJson({ b: [1], a: [2] });
    const b = canonicalAttributesJson({ a: [2], b: [1] });
    expect(a).toBe(b);
    // Keys that only look like numbers (a leading zero, a sign, ten digits) are sorted as text.
    const odd = { '01': [1], '-1': [2], '1234567890': [3], '0': [4], '999999999': [5], x: [6] };
    const reversed = Object.fromEntries(Object.entries(odd).reverse());
    expect(canonicalAttributesJson(reversed)).toBe(canonicalAttributesJson(odd));
    expect(Object.keys(JSON.parse(canonicalAttributesJson(odd)))).toEqual(['0', '999999999', '1234567890', '-1', '01', 'x']);
  });

  it('gives an object its canonical JSON and, when asked, the hash of its values', () => {
    const o = { connectedSystemId: 1, objectTypeId: 2, externalId: 'e1', displayName: 'Ann', attributes: { 9: ['x'], 3: [1] } };
    const content = connectorSpaceContent(o);
    expect(content.json).toBe('{"3":[1],"9":["x"]}');
    expect(content.hash).toBe(connectorSpaceContentHash(null, 'Ann', content.json).toString('hex'));
    expect(content.hash).toBe(content.hash);
    const given = { json: '{}', hash: 'ab' };
    expect(connectorSpaceContent({ ...o, content: given })).toBe(given);
  });

  it('changes with any value, the display name and the secondary external id', () => {
    const base = connectorSpaceContentHash('ada@x', 'Ada', '{"1":["a"]}');
    expect(base).toHaveLength(32);
    expect(connectorSpaceContentHash('ada@x', 'Ada', '{"1":["a"]}').equals(base)).toBe(true);
    expect(connectorSpaceContentHash('ada@x', 'Ada', '{"1":["b"]}').equals(base)).toBe(false);
    expect(connectorSpaceContentHash('ada@x', 'Ada L', '{"1":["a"]}').equals(base)).toBe(false);
    expect(connectorSpaceContentHash(null, 'Ada', '{"1":["a"]}').equals(base)).toBe(false);
    // null and the text "null" are different values
    expect(connectorSpaceContentHash(null, null, '{}').equals(connectorSpaceContentHash('null', null, '{}'))).toBe(false);
  });
});

describe('uuidV7', () => {
  it('is a version 7, variant 10 UUID carrying the millisecond', () => {
    const id = uuidV7(Date.UTC(2030, 0, 1));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(Date.UTC(2030, 0, 1));
  });

  it('ascends, also within one millisecond and when the clock goes back', () => {
    const now = Date.UTC(2031, 5, 1);
    const ids = [...Array.from({ length: 5000 }, () => uuidV7(now)), uuidV7(now - 10_000), uuidV7(now + 1)];
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
