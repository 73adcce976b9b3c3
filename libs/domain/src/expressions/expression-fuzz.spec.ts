import fc from 'fast-check';
import { compileExpression } from './expression-compiler';
import { ExpressionContext } from './expression-context';
import { ExpressionError } from './expression-error';
import { EXPRESSION_FUNCTIONS } from './expression-functions';
import { OPERATORS } from './expression-lexer';
import { EXPRESSION_LIMITS } from './expression-limits';
import { ExpressionValue, valuesEqual } from './expression-value';

const NOW = () => new Date('2025-01-15T10:30:00.000Z');
const NAMES = ['a', 'B', 'Status', 'givenName', 'userAccountControl', '__proto__', 'constructor', 'toString'];

/** What an evaluation may return: plain data, never a host object. */
function isExpressionValue(value: unknown): value is ExpressionValue {
  const scalar = (v: unknown) =>
    typeof v === 'string' ||
    typeof v === 'number' ||
    typeof v === 'boolean' ||
    (v instanceof Date && Object.getPrototypeOf(v) === Date.prototype);
  if (value === null || scalar(value)) return true;
  return Array.isArray(value) && value.every(scalar);
}

/** The line and column an offset falls on, by the lexer's rules (\n, \r\n and \r end a line). */
function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text[i] === '\r' && text[i + 1] === '\n') i++;
    if (text[i] === '\n' || text[i] === '\r') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Every ExpressionError points inside the text, at the token it names. */
function expectWellPlaced(error: ExpressionError, text: string): void {
  const { offset, line, column } = error.position;
  expect(offset).toBeGreaterThanOrEqual(0);
  expect(offset).toBeLessThanOrEqual(text.length);
  expect({ line, column }).toEqual(positionOf(text, offset));
  if (error.token !== '') expect(text.startsWith(error.token, offset)).toBe(true);
}

/**
 * Compiles and evaluates; the only acceptable failure is an ExpressionError that points into the
 * text. Returns the value, or undefined when it failed.
 */
function check(text: string, context: ExpressionContext): ExpressionValue | undefined {
  const compiled = compileExpression(text);
  if (!compiled.ok) {
    expect(compiled.error).toBeInstanceOf(ExpressionError);
    expectWellPlaced(compiled.error, text);
    return undefined;
  }
  try {
    const value = compiled.expression.evaluate(context, { now: NOW });
    expect(isExpressionValue(value)).toBe(true);
    return value;
  } catch (e) {
    if (!(e instanceof ExpressionError)) throw e;
    expectWellPlaced(e, text);
    return undefined;
  }
}

const attributeValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('', ' ', '514', '2025-01-15', '133801632000000000', '__proto__', 'a,b,,c', '-1', '1e3'),
  fc.integer(),
  fc.double(),
  fc.bigInt(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date(),
  fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)), { maxLength: 5 }),
);
const record = fc.dictionary(fc.constantFrom(...NAMES), attributeValue, { maxKeys: 6 });
const context: fc.Arbitrary<ExpressionContext> = fc.record({ mv: record, cs: record });

const stringLiteral = fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s));
const numberLiteral = fc.oneof(
  fc.integer({ min: 0, max: 100_000 }).map(String),
  fc.constantFrom('0', '1', '2', '0x2', '0x10000', '1.5', '1e3', '512', '514', '16'),
);
const accessor = fc
  .tuple(fc.constantFrom('mv', 'cs', 'MV'), fc.constantFrom(...NAMES))
  .map(([source, name]) => `${source}[${JSON.stringify(name)}]`);
const callable = EXPRESSION_FUNCTIONS.flatMap((def) => {
  const min = def.parameters.filter((p) => !p.optional).length;
  const max = def.parameters.some((p) => p.variadic) ? min + 3 : def.parameters.length;
  return [def.name, ...(def.aliases ?? [])].map((name) => ({ name, min, max }));
});

/** Well-formed expressions over every function, operator and accessor form. */
const { expression } = fc.letrec<{ expression: string; leaf: string; unary: string; binary: string; call: string }>((tie) => ({
  expression: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('unary'), tie('binary'), tie('call')),
  leaf: fc.oneof(stringLiteral, numberLiteral, fc.constantFrom('true', 'false', 'null'), accessor),
  unary: fc.tuple(fc.constantFrom('!', '-'), tie('expression')).map(([op, e]) => `${op}${e}`),
  binary: fc
    .tuple(tie('expression'), fc.constantFrom('||', '&&', '==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%'), tie('expression'))
    .map(([a, op, b]) => `(${a} ${op} ${b})`),
  call: fc
    .constantFrom(...callable)
    .chain(({ name, min, max }) =>
      fc.array(tie('expression'), { minLength: min, maxLength: max }).map((args) => `${name}(${args.join(', ')})`),
    ),
}));

const TOKENS = [
  ...OPERATORS,
  '(',
  ')',
  '[',
  ']',
  ',',
  '"a"',
  "'b'",
  '1',
  '0',
  '0x2',
  'null',
  'true',
  'mv',
  'cs',
  '"Status"',
  'Lower',
  'IIF',
  'Coalesce',
  'Left',
  '=',
  '.',
  '`',
  '\\',
  '"',
  "'",
  '\n',
  '$',
  '{',
];
const tokenSoup = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 40 })
  .chain((tokens) => fc.constantFrom(tokens.join(''), tokens.join(' ')));

describe('expression fuzzing', () => {
  const prototypeKeys = Reflect.ownKeys(Object.prototype);
  afterAll(() => expect(Reflect.ownKeys(Object.prototype)).toEqual(prototypeKeys));

  it('never throws anything but ExpressionError for arbitrary text', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'binary-ascii', maxLength: 200 })),
        context,
        (text, ctx) => {
          check(text, ctx);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('never throws anything but ExpressionError for soups of real tokens', () => {
    fc.assert(
      fc.property(tokenSoup, context, (text, ctx) => {
        check(text, ctx);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws anything but ExpressionError for well-formed expressions over every function', () => {
    let evaluated = 0;
    fc.assert(
      fc.property(expression, context, (text, ctx) => {
        if (text.length > EXPRESSION_LIMITS.maxLength) return;
        if (check(text, ctx) !== undefined) evaluated++;
      }),
      { numRuns: 4000 },
    );
    // The generator must mostly produce expressions that compile and evaluate, or it tests nothing.
    expect(evaluated).toBeGreaterThan(500);
  });

  it('reads back any string written as a literal', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const compiled = compileExpression(JSON.stringify(s));
        expect(compiled.ok && compiled.expression.evaluate()).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back any non-negative number written as a literal', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (n) => {
        const compiled = compileExpression(String(n));
        expect(compiled.ok && compiled.expression.evaluate()).toBe(n + 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('splits text so that Left and Substring put it back together', () => {
    const compiled = compileExpression('Left(cs["s"], cs["n"]) + Substring(cs["s"], cs["n"])');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.nat(40), (s, n) => {
        expect(compiled.ok && compiled.expression.evaluate({ cs: { s, n } })).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('escapes DNs reversibly, leaving no special character unescaped (RFC 4514)', () => {
    const compiled = compileExpression('EscapeDN(cs["s"])');
    const unescape = (s: string) =>
      s.replace(/\\([0-9a-fA-F]{2}|.)/gsu, (_m, c: string) => (c.length === 2 ? String.fromCharCode(parseInt(c, 16)) : c));
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '#', '"', '+', ',', ';', '<', '>', '\\', '=', '\0', 'é'), maxLength: 20 }),
        (s) => {
          const escaped = compiled.ok ? (compiled.expression.evaluate({ cs: { s } }) as string) : '';
          expect(unescape(escaped)).toBe(s);
          const stripped = escaped.replace(/\\([0-9a-fA-F]{2}|.)/gsu, '');
          expect(stripped).not.toMatch(/["+,;<>\\\0]/);
          if (s.startsWith(' ') || s.startsWith('#')) expect(escaped.startsWith('\\')).toBe(true);
          if (s.endsWith(' ')) expect(escaped.endsWith('\\ ')).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('converts any date to FILETIME and back', () => {
    const compiled = compileExpression('FromFileTime(ToFileTime(cs["d"]))');
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1601-01-01T00:00:00.001Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
        (d) => {
          expect(compiled.ok && valuesEqual(compiled.expression.evaluate({ cs: { d } }), d)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
