import { compileExpressionOrThrow } from '../expressions';
import type { ExpressionContext } from '../expressions';
import { AttributeDataType } from '../metaverse/metaverse-types';
import { ExecutionErrorType } from './engine.enums';
import { evaluateMapping, FlowInput, normaliseValues, sameValue, sameValues } from './flow-values';
import type { EngineAttribute, MappingSource } from './sync-model';

const attr = (type: string, plurality: 'Single' | 'Multi' = 'Single', name = `${type} attribute`): EngineAttribute => ({
  id: 1,
  name,
  type,
  plurality,
});
const INVALID = 'invalid' as const;

describe('normaliseValues', () => {
  const when = new Date('2024-03-01T10:00:00.000Z');

  it.each<[string, unknown[], unknown[] | typeof INVALID]>([
    // Text: trimmed; whitespace-only, null and undefined are no value; other values become their text.
    [AttributeDataType.String, ['  Ann  '], ['Ann']],
    [AttributeDataType.String, ['   ', '\t\n', ''], []],
    [AttributeDataType.String, [null, undefined], []],
    [AttributeDataType.String, [42, true], ['42', 'true']],
    [AttributeDataType.String, [when], ['2024-03-01T10:00:00.000Z']],
    [AttributeDataType.String, ['a', ' a '], ['a', 'a']],
    [AttributeDataType.Text, [' long text '], ['long text']],
    [AttributeDataType.Binary, [' AAEC '], ['AAEC']],
    // Whole numbers: numbers or decimal text; fractions, non-numbers and unsafe integers are invalid.
    [AttributeDataType.Integer, [42, ' -7 ', '0'], [42, -7, 0]],
    [AttributeDataType.Integer, ['', '  '], []],
    [AttributeDataType.Integer, ['4.5'], INVALID],
    [AttributeDataType.Integer, [4.5], INVALID],
    [AttributeDataType.Integer, ['forty-two'], INVALID],
    [AttributeDataType.Integer, [Number.POSITIVE_INFINITY], INVALID],
    [AttributeDataType.Integer, [2 ** 53], INVALID],
    [AttributeDataType.Integer, [true], INVALID],
    [AttributeDataType.LongNumber, ['9007199254740991'], [9007199254740991]],
    [AttributeDataType.LongNumber, [1.25], INVALID],
    [AttributeDataType.Decimal, ['4.5', 1.25, '1e3'], [4.5, 1.25, 1000]],
    [AttributeDataType.Decimal, ['4,5'], INVALID],
    // Booleans: true/false, yes/no, 1/0 in any case.
    [AttributeDataType.Boolean, [true, false], [true, false]],
    [AttributeDataType.Boolean, ['TRUE', ' yes ', '1', 1], [true, true, true, true]],
    [AttributeDataType.Boolean, ['False', 'NO', '0', 0], [false, false, false, false]],
    [AttributeDataType.Boolean, [' '], []],
    [AttributeDataType.Boolean, ['maybe'], INVALID],
    // Date-times: stored as ISO 8601 UTC with milliseconds; dates and zone-less times are UTC.
    [AttributeDataType.DateTime, [when], ['2024-03-01T10:00:00.000Z']],
    [AttributeDataType.DateTime, ['2024-03-01'], ['2024-03-01T00:00:00.000Z']],
    [AttributeDataType.DateTime, [' 2024-03-01T10:00:00Z '], ['2024-03-01T10:00:00.000Z']],
    [AttributeDataType.DateTime, ['2024-03-01T10:00:00+01:00'], ['2024-03-01T09:00:00.000Z']],
    [AttributeDataType.DateTime, ['2024-03-01T10:00:00+0100'], ['2024-03-01T09:00:00.000Z']],
    [AttributeDataType.DateTime, ['2024-03-01T10:00'], ['2024-03-01T10:00:00.000Z']],
    [AttributeDataType.DateTime, ['2024-03-01 10:00:30'], ['2024-03-01T10:00:30.000Z']],
    [AttributeDataType.DateTime, ['20240301100000.0Z'], ['2024-03-01T10:00:00.000Z']],
    [AttributeDataType.DateTime, ['  '], []],
    [AttributeDataType.DateTime, ['2024-13-01'], INVALID],
    [AttributeDataType.DateTime, ['2024-02-30'], INVALID],
    [AttributeDataType.DateTime, ['yesterday'], INVALID],
    [AttributeDataType.DateTime, [1709287200000], INVALID],
    [AttributeDataType.DateTime, [new Date(Number.NaN)], INVALID],
    // GUIDs: lower-cased, braces dropped; anything else is invalid.
    [AttributeDataType.Guid, ['  ABCDEF00-0000-4000-8000-00000000000A '], ['abcdef00-0000-4000-8000-00000000000a']],
    [AttributeDataType.Guid, ['{ABCDEF00-0000-4000-8000-00000000000A}'], ['abcdef00-0000-4000-8000-00000000000a']],
    [AttributeDataType.Guid, ['AAECAwQFBgcICQoLDA0ODw=='], INVALID],
    [AttributeDataType.Guid, [''], []],
    // References (metaverse object ids): lower-cased.
    [AttributeDataType.Reference, ['0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B'], ['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b']],
  ])('%s %j → %j', (type, raw, expected) => {
    const result = normaliseValues(raw, attr(type));
    if (expected === INVALID) {
      expect(result).toEqual({
        ok: false,
        errorType: ExecutionErrorType.UnhandledError,
        message: expect.stringContaining(`is not a valid ${type} value.`),
      });
    } else {
      expect(result).toEqual({ ok: true, values: expected });
    }
  });

  it('names the attribute and the offending value, shortened to 100 characters', () => {
    expect(normaliseValues(['12', 'twelve'], attr(AttributeDataType.Integer, 'Single', 'Employee Number'))).toEqual({
      ok: false,
      errorType: ExecutionErrorType.UnhandledError,
      message: 'Employee Number: "twelve" is not a valid Integer value.',
    });
    const long = normaliseValues(['x'.repeat(500)], attr(AttributeDataType.Integer, 'Single', 'N'));
    expect(long.ok).toBe(false);
    if (!long.ok) expect(long.message).toBe(`N: "${'x'.repeat(100)}" is not a valid Integer value.`);
  });
});

describe('sameValue / sameValues', () => {
  it.each<[unknown, unknown, boolean]>([
    ['a', 'a', true],
    ['A', 'a', false],
    [42, 42, true],
    [42, '42', true],
    ['1.50', 1.5, true],
    [0, '', false],
    [0, '  ', false],
    ['', 0, false],
    [true, 'true', true],
    [false, 'true', false],
    [null, null, true],
    [null, 'a', false],
    ['a', undefined, false],
    ['2024-03-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z', true],
  ])('sameValue(%j, %j) → %s', (a, b, expected) => {
    expect(sameValue(a, b)).toBe(expected);
    expect(sameValue(b, a)).toBe(expected);
  });

  it.each<[unknown[], unknown[], boolean]>([
    [[], [], true],
    [['a', 'b'], ['b', 'a'], true],
    [['a', 'a', 'b'], ['b', 'a'], true],
    [['a'], ['a', 'b'], false],
    [['a', 'b'], ['a'], false],
    [['a'], [], false],
    [[], ['a'], false],
    [[1, 2], ['2', '1'], true],
    [['Smith'], ['smith'], false],
    [[0], [''], false],
  ])('sameValues(%j, %j) → %s', (a, b, expected) => {
    expect(sameValues(a, b)).toBe(expected);
    expect(sameValues(b, a)).toBe(expected);
  });
});

describe('evaluateMapping', () => {
  const CS: Record<number, unknown[]> = {
    1: ['  Ann '],
    2: ['Lee'],
    3: ['   '],
    4: ['ann@example.com', 'ANN@example.com', 'a.lee@example.com'],
    5: ['a.lee@example.com', 'lee@example.com'],
    6: ['17'],
    7: [],
  };
  const csByName: Record<string, unknown> = {
    firstName: '  Ann ',
    lastName: 'Lee',
    blank: '   ',
    emails: CS[4],
    employeeNumber: 'n/a',
    aliases: 'x;y;x',
  };
  const input = (context: ExpressionContext = { cs: csByName, mv: { Department: 'Sales' } }): FlowInput => ({
    values: (id) => CS[id] ?? [],
    context,
  });
  const direct = (attributeId: number): MappingSource => ({ attributeId, expression: null });
  const expr = (text: string, attributeId: number | null = null): MappingSource => ({
    attributeId,
    expression: compileExpressionOrThrow(text),
  });
  const single = attr(AttributeDataType.String, 'Single', 'Display Name');
  const multi = attr(AttributeDataType.String, 'Multi', 'Emails');

  it.each<[string, MappingSource[], EngineAttribute, unknown]>([
    ['a direct copy, trimmed', [direct(1)], single, { ok: true, values: ['Ann'] }],
    ['an absent source: no value', [direct(99)], single, { ok: true, values: [] }],
    ['a whitespace-only source: no value', [direct(3)], single, { ok: true, values: [] }],
    [
      'a source with neither attribute nor expression: no value',
      [{ attributeId: null, expression: null }],
      single,
      { ok: true, values: [] },
    ],
    ['an expression over cs[…]', [expr('Trim(cs["firstName"]) + " " + Upper(cs["lastName"])')], single, { ok: true, values: ['Ann LEE'] }],
    ['an expression over mv[…]', [expr('Lower(mv["department"])')], single, { ok: true, values: ['sales'] }],
    ['an expression wins over the attribute of the same source', [expr('"computed"', 1)], single, { ok: true, values: ['computed'] }],
    ['an expression giving null: no value', [expr('cs["missing"]')], single, { ok: true, values: [] }],
    ['an expression giving whitespace: no value', [expr('cs["blank"]')], single, { ok: true, values: [] }],
    ['single-valued: the first source with a value wins', [direct(1), direct(2)], single, { ok: true, values: ['Ann'] }],
    [
      'single-valued: empty and blank sources are skipped',
      [direct(7), direct(3), expr('cs["missing"]'), direct(2), direct(1)],
      single,
      { ok: true, values: ['Lee'] },
    ],
    ['single-valued: nothing anywhere', [direct(7), direct(3)], single, { ok: true, values: [] }],
    [
      'multi-valued: one source, every value',
      [direct(4)],
      multi,
      { ok: true, values: ['ann@example.com', 'ANN@example.com', 'a.lee@example.com'] },
    ],
    [
      'multi-valued: the union of every source, duplicates removed, first-seen order',
      [direct(4), direct(5), expr('"lee@example.com"')],
      multi,
      { ok: true, values: ['ann@example.com', 'ANN@example.com', 'a.lee@example.com', 'lee@example.com'] },
    ],
    [
      'multi-valued: an expression list is flattened and deduplicated',
      [expr('Split(cs["aliases"], ";")')],
      multi,
      { ok: true, values: ['x', 'y'] },
    ],
    ['multi-valued: nothing anywhere', [direct(7), direct(3)], multi, { ok: true, values: [] }],
    [
      'a typed target converts the value',
      [direct(6)],
      attr(AttributeDataType.Integer, 'Single', 'Employee Number'),
      { ok: true, values: [17] },
    ],
  ])('%s', (_name, sources, target, expected) => {
    expect(evaluateMapping(sources, input(), target)).toEqual(expected);
  });

  it.each<[string, MappingSource[], EngineAttribute, unknown]>([
    [
      'several values into a single-valued target',
      [direct(4)],
      single,
      {
        ok: false,
        errorType: ExecutionErrorType.MultiValuedToSingleValued,
        message: 'Display Name is single-valued but the source gave 3 values.',
      },
    ],
    [
      'a list expression into a single-valued target',
      [expr('Split("a;b", ";")')],
      single,
      {
        ok: false,
        errorType: ExecutionErrorType.MultiValuedToSingleValued,
        message: 'Display Name is single-valued but the source gave 2 values.',
      },
    ],
    [
      'an expression that throws',
      [expr('Left(cs["firstName"], -1)')],
      single,
      {
        ok: false,
        errorType: ExecutionErrorType.ExpressionEvaluationError,
        message: 'Display Name: Left: count must be 0 or more, got -1',
      },
    ],
    [
      'an expression that throws in a later source of a multi-valued target',
      [direct(4), expr('Left("x", -1)')],
      multi,
      { ok: false, errorType: ExecutionErrorType.ExpressionEvaluationError, message: 'Emails: Left: count must be 0 or more, got -1' },
    ],
    [
      'a value that is not of the target type',
      [expr('cs["employeeNumber"]')],
      attr(AttributeDataType.Integer, 'Single', 'Employee Number'),
      { ok: false, errorType: ExecutionErrorType.UnhandledError, message: 'Employee Number: "n/a" is not a valid Integer value.' },
    ],
  ])('reports %s', (_name, sources, target, expected) => {
    expect(evaluateMapping(sources, input(), target)).toEqual(expected);
  });

  it('does not evaluate later sources once a single-valued target has its value', () => {
    expect(evaluateMapping([direct(1), expr('Left("x", -1)')], input(), single)).toEqual({ ok: true, values: ['Ann'] });
  });

  it('turns Dates from expressions into the target type', () => {
    const context = { cs: { start: new Date('2024-03-01T10:00:00.000Z') } };
    expect(evaluateMapping([expr('cs["start"]')], input(context), attr(AttributeDataType.DateTime))).toEqual({
      ok: true,
      values: ['2024-03-01T10:00:00.000Z'],
    });
    expect(evaluateMapping([expr('cs["start"]')], input(context), attr(AttributeDataType.String))).toEqual({
      ok: true,
      values: ['2024-03-01T10:00:00.000Z'],
    });
  });
});
