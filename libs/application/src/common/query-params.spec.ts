import { ConnectorSpaceObjectStatus, DomainError, ValidationErrorCollector } from '@meridian/domain';
import { booleanParam, enumParam, positiveIntParam, prefixPattern, textParam } from './query-params';

function errorsOf(fill: (errors: ValidationErrorCollector) => void): Record<string, string[]> {
  const errors = new ValidationErrorCollector();
  fill(errors);
  try {
    errors.throwIfAny();
    return {};
  } catch (e) {
    return (e as DomainError).validationErrors ?? {};
  }
}

describe('query parameters', () => {
  it.each<[unknown, ConnectorSpaceObjectStatus | null, boolean]>([
    [undefined, null, false],
    ['', null, false],
    ['Obsolete', ConnectorSpaceObjectStatus.Obsolete, false],
    ['obsolete', null, true],
    [['Normal', 'Obsolete'], null, true],
    [7, null, true],
  ])('enumParam(%j) is %j (error: %s)', (raw, expected, error) => {
    let value: unknown;
    expect(
      Object.keys(
        errorsOf((e) => {
          value = enumParam(raw, ConnectorSpaceObjectStatus, 'status', e);
        }),
      ),
    ).toEqual(error ? ['status'] : []);
    expect(value).toBe(expected);
  });

  it.each<[unknown, number | null, boolean]>([
    [undefined, null, false],
    ['12', 12, false],
    [' 12 ', 12, false],
    [12, 12, false],
    ['0', null, true],
    ['-1', null, true],
    ['1.5', null, true],
    ['0x10', null, true],
    ['1e3', null, true],
    ['2147483648', null, true],
    [2.5, null, true],
  ])('positiveIntParam(%j) is %j (error: %s)', (raw, expected, error) => {
    let value: unknown;
    expect(
      Object.keys(
        errorsOf((e) => {
          value = positiveIntParam(raw, 'objectTypeId', e);
        }),
      ),
    ).toEqual(error ? ['objectTypeId'] : []);
    expect(value).toBe(expected);
  });

  it.each<[unknown, boolean | null, boolean]>([
    [undefined, null, false],
    ['true', true, false],
    ['FALSE', false, false],
    [true, true, false],
    ['yes', null, true],
    ['1', null, true],
  ])('booleanParam(%j) is %j (error: %s)', (raw, expected, error) => {
    let value: unknown;
    expect(
      Object.keys(
        errorsOf((e) => {
          value = booleanParam(raw, 'joined', e);
        }),
      ),
    ).toEqual(error ? ['joined'] : []);
    expect(value).toBe(expected);
  });

  it('trims text, reads blank as absent and refuses what is too long or not text', () => {
    let value: unknown;
    expect(
      errorsOf((e) => {
        value = textParam('  ada ', 'search', 10, e);
      }),
    ).toEqual({});
    expect(value).toBe('ada');
    expect(
      errorsOf((e) => {
        value = textParam('   ', 'search', 5, e);
      }),
    ).toEqual({});
    expect(value).toBeNull();
    expect(Object.keys(errorsOf((e) => textParam('abcdef', 'search', 5, e)))).toEqual(['search']);
    expect(Object.keys(errorsOf((e) => textParam(['a'], 'search', 5, e)))).toEqual(['search']);
  });

  it.each([
    ['ada', 'ada%'],
    ['100%', '100\\%%'],
    ['a_b', 'a\\_b%'],
    ['C:\\x', 'C:\\\\x%'],
  ])('prefixPattern(%j) is %j', (text, pattern) => {
    expect(prefixPattern(text)).toBe(pattern);
  });
});
