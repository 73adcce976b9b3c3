// eslint-disable-next-line no-restricted-imports -- reads this folder's sources to guard against code evaluation
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { compileExpression } from './expression-compiler';
import { ExpressionContext } from './expression-context';
import { ExpressionError, ExpressionErrorCode } from './expression-error';
import { EXPRESSION_LIMITS } from './expression-limits';
import { ExpressionValue } from './expression-value';

/** Every own property (and its descriptor) of the intrinsics an attack would aim at. */
function intrinsicsSnapshot(): unknown {
  const targets = {
    Object: Object.prototype,
    Array: Array.prototype,
    Function: Function.prototype,
    String: String.prototype,
    Map: Map.prototype,
    Date: Date.prototype,
  };
  const described = Object.entries(targets).map(([name, target]) => [
    name,
    Reflect.ownKeys(target).map((key) => [String(key), Object.getOwnPropertyDescriptor(target, key)]),
  ]);
  return { described, globals: Reflect.ownKeys(globalThis).map(String).sort() };
}

/** Contexts an attacker might control (e.g. from a CSV or LDAP import). */
const HOSTILE_CONTEXTS: ExpressionContext[] = [
  {},
  { mv: { Status: 'Archived' }, cs: { givenName: 'Ada', sn: 'Lovelace' } },
  { cs: JSON.parse('{"__proto__": "proto-as-data", "constructor": "ctor-as-data", "prototype": "p"}') as Record<string, unknown> },
  { cs: JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown> },
  {
    cs: new Map<string, unknown>([
      ['__proto__', { polluted: 'yes' }],
      ['constructor', 'c'],
    ]),
  },
];

function isExpressionValue(value: unknown): value is ExpressionValue {
  const scalar = (v: unknown) =>
    typeof v === 'string' ||
    typeof v === 'number' ||
    typeof v === 'boolean' ||
    (v instanceof Date && Object.getPrototypeOf(v) === Date.prototype);
  if (value === null || scalar(value)) return true;
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype && value.every(scalar);
}

type Outcome = { rejected: ExpressionErrorCode } | { values: ExpressionValue[] };

/** Compiles and evaluates against every hostile context; anything but an ExpressionError fails the test. */
function attempt(text: string): Outcome {
  const compiled = compileExpression(text);
  if (!compiled.ok) return { rejected: compiled.error.code };
  const values: ExpressionValue[] = [];
  for (const context of HOSTILE_CONTEXTS) {
    try {
      const value = compiled.expression.evaluate(context);
      expect(isExpressionValue(value)).toBe(true);
      values.push(value);
    } catch (e) {
      if (!(e instanceof ExpressionError)) throw e;
    }
  }
  return { values };
}

describe('expression safety', () => {
  const before = intrinsicsSnapshot();
  afterEach(() => expect(intrinsicsSnapshot()).toEqual(before));

  it.each<[string, ExpressionErrorCode]>([
    ['constructor', ExpressionErrorCode.UnknownName],
    ['__proto__', ExpressionErrorCode.UnknownName],
    ['prototype', ExpressionErrorCode.UnknownName],
    ['this', ExpressionErrorCode.UnknownName],
    ['process', ExpressionErrorCode.UnknownName],
    ['globalThis', ExpressionErrorCode.UnknownName],
    ['window', ExpressionErrorCode.UnknownName],
    ['require', ExpressionErrorCode.UnknownName],
    ['arguments', ExpressionErrorCode.UnknownName],
    ['constructor(1)', ExpressionErrorCode.UnknownFunction],
    ['require("child_process")', ExpressionErrorCode.UnknownFunction],
    ['import("fs")', ExpressionErrorCode.UnknownFunction],
    ['eval("process.exit(1)")', ExpressionErrorCode.UnknownFunction],
    ['Function("return this")', ExpressionErrorCode.UnknownFunction],
    ['valueOf()', ExpressionErrorCode.UnknownFunction],
    ['hasOwnProperty("x")', ExpressionErrorCode.UnknownFunction],
    ['__defineGetter__("x", 1)', ExpressionErrorCode.UnknownFunction],
    ['__lookupGetter__("x")', ExpressionErrorCode.UnknownFunction],
    ['isPrototypeOf(1)', ExpressionErrorCode.UnknownFunction],
    ['toString()', ExpressionErrorCode.ArgumentCount],
    ['constructor("return process")()', ExpressionErrorCode.Syntax],
    ['Function("return this")()', ExpressionErrorCode.Syntax],
    ['new Function("x")', ExpressionErrorCode.Syntax],
    ['process.exit(1)', ExpressionErrorCode.Syntax],
    ['process["exit"](1)', ExpressionErrorCode.Syntax],
    ['globalThis["process"]', ExpressionErrorCode.InvalidAccessor],
    ['this["constructor"]', ExpressionErrorCode.InvalidAccessor],
    ['Lower["constructor"]', ExpressionErrorCode.InvalidAccessor],
    ['Lower.constructor', ExpressionErrorCode.Syntax],
    ['cs.constructor', ExpressionErrorCode.Syntax],
    ['cs["a"]["constructor"]', ExpressionErrorCode.Syntax],
    ['cs["constructor"]["constructor"]("return process")()', ExpressionErrorCode.Syntax],
    ['mv[cs["x"]]', ExpressionErrorCode.InvalidAccessor],
    ['cs["__pro" + "to__"]', ExpressionErrorCode.InvalidAccessor],
    ['Object.prototype.polluted = 1', ExpressionErrorCode.Syntax],
    ['cs["__proto__"]["polluted"] = "yes"', ExpressionErrorCode.Syntax],
    ['x => x', ExpressionErrorCode.Syntax],
    ['(function () { return this })()', ExpressionErrorCode.Syntax],
    ['"a"; process.exit()', ExpressionErrorCode.Syntax],
    ['`${process.env}`', ExpressionErrorCode.Syntax],
    ['`abc`', ExpressionErrorCode.Syntax],
    ['Lower`x`', ExpressionErrorCode.Syntax],
    ['\\u0070rocess', ExpressionErrorCode.Syntax],
    ['\\u{70}rocess', ExpressionErrorCode.Syntax],
    ['рrocess', ExpressionErrorCode.Syntax],
    ['"\\q"', ExpressionErrorCode.Syntax],
    ['1 // comment', ExpressionErrorCode.Syntax],
    ['1 /* comment */', ExpressionErrorCode.Syntax],
    ['{}', ExpressionErrorCode.Syntax],
    ['[1, 2]', ExpressionErrorCode.Syntax],
    ['cs["a"] ?? "x"', ExpressionErrorCode.Syntax],
    ['true ? 1 : 2', ExpressionErrorCode.Syntax],
    ['#!/bin/sh', ExpressionErrorCode.Syntax],
  ])('rejects %j at compile time (%s)', (text, code) => {
    expect(attempt(text)).toEqual({ rejected: code });
  });

  it.each<[string, ExpressionValue]>([
    ['mv["constructor"]', null],
    ['mv["prototype"]', null],
    ['cs["toString"]', null],
    ['cs["hasOwnProperty"]', null],
    ['cs["valueOf"]', null],
    ['cs["\\u005f_proto__"]', null],
    ['IsNullOrEmpty(cs["__defineGetter__"])', true],
    ['"${process.env}"', '${process.env}'],
    ['"\\u0070rocess"', 'process'],
    ['"\\x60${1}\\x60"', '`${1}`'],
    ['"require(\'fs\')" + "; process.exit()"', "require('fs'); process.exit()"],
    ['Lower("CONSTRUCTOR")', 'constructor'],
    ['Replace("a", "a", "$`$\'$&")', "$`$'$&"],
    ['Split("__proto__,constructor", ",")', ['__proto__', 'constructor']],
    ['"a" +\u2028"b"', 'ab'],
  ])('evaluates %j harmlessly to plain data', (text, expected) => {
    const compiled = compileExpression(text);
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(compiled.expression.evaluate({ cs: {}, mv: {} })).toEqual(expected);
    expect(attempt(text)).toHaveProperty('values');
  });

  it('never reads the prototype chain, even when it is polluted by someone else', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.pwned = 'from the prototype';
    try {
      const compiled = compileExpression('Coalesce(cs["pwned"], mv["PWNED"], "safe")');
      expect(compiled.ok && compiled.expression.evaluate({ cs: {}, mv: { other: 1 } })).toBe('safe');
    } finally {
      delete proto.pwned;
    }
  });

  it('reads own "__proto__" and "constructor" data as data and refuses objects there', () => {
    const compiled = compileExpression('cs["__proto__"] + "|" + cs["CONSTRUCTOR"]');
    expect(compiled.ok && compiled.expression.evaluate(HOSTILE_CONTEXTS[2])).toBe('proto-as-data|ctor-as-data');
    const objects = compileExpression('cs["__proto__"]');
    expect(() => objects.ok && objects.expression.evaluate(HOSTILE_CONTEXTS[3])).toThrow(ExpressionError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never calls methods of host values', () => {
    const toString = jest.fn(() => 'called');
    const valueOf = jest.fn(() => 42);
    const toPrimitive = jest.fn(() => 'called');
    const hostile = { toString, valueOf, [Symbol.toPrimitive]: toPrimitive };
    for (const text of ['cs["x"]', '"" + cs["x"]', 'Lower(cs["x"])', 'cs["x"] == "called"', 'Join(cs["l"], ",")']) {
      const compiled = compileExpression(text);
      expect(compiled.ok).toBe(true);
      if (compiled.ok) expect(() => compiled.expression.evaluate({ cs: { x: hostile, l: [hostile] } })).toThrow(ExpressionError);
    }
    expect(toString).not.toHaveBeenCalled();
    expect(valueOf).not.toHaveBeenCalled();
    expect(toPrimitive).not.toHaveBeenCalled();
  });

  it('does not let a Date subclass or a spoofed date smuggle an object in', () => {
    class EvilDate extends Date {
      override getTime(): number {
        throw new Error('called');
      }
    }
    const compiled = compileExpression('cs["d"]');
    const value = compiled.ok ? compiled.expression.evaluate({ cs: { d: new EvilDate('2025-01-01T00:00:00Z') } }) : null;
    expect(Object.getPrototypeOf(value)).toBe(Date.prototype);
    expect((value as Date).toISOString()).toBe('2025-01-01T00:00:00.000Z');
    const spoof = Object.create(Date.prototype) as Date;
    expect(() => compiled.ok && compiled.expression.evaluate({ cs: { d: spoof } })).toThrow(ExpressionError);
  });

  describe('size and depth', () => {
    it('accepts 10,000 characters and rejects 10,001', () => {
      const padded = (n: number) => `"${'a'.repeat(n - 2)}"`;
      expect(compileExpression(padded(EXPRESSION_LIMITS.maxLength)).ok).toBe(true);
      expect(attempt(padded(EXPRESSION_LIMITS.maxLength + 1))).toEqual({ rejected: ExpressionErrorCode.TooLong });
      const error = compileExpression('1'.repeat(10_001));
      expect(!error.ok && error.error.message).toBe('The expression is 10,001 characters long; the limit is 10,000');
    });

    it.each<[string, string, ExpressionErrorCode]>([
      ['10,000-deep parentheses', `${'('.repeat(10_000)}1${')'.repeat(10_000)}`, ExpressionErrorCode.TooLong],
      ['10,000-deep negation', `${'!'.repeat(10_000)}true`, ExpressionErrorCode.TooLong],
      ['9,999-deep unary minus (10,000 characters)', `${'-'.repeat(9_999)}1`, ExpressionErrorCode.TooDeep],
      ['4,999-deep parentheses', `${'('.repeat(4_999)}1${')'.repeat(4_999)}`, ExpressionErrorCode.TooDeep],
      ['4,999 unclosed parentheses', '('.repeat(4_999), ExpressionErrorCode.TooDeep],
      ['1,400-deep calls', `${'Lower('.repeat(1_400)}"a"${')'.repeat(1_400)}`, ExpressionErrorCode.TooDeep],
      ['2,000-deep accessors', `${'cs['.repeat(2_000)}"a"${']'.repeat(2_000)}`, ExpressionErrorCode.TooDeep],
      ['201-deep parentheses', `${'('.repeat(201)}1${')'.repeat(201)}`, ExpressionErrorCode.TooDeep],
    ])('rejects %s with a clear error instead of overflowing the stack', (_name, text, code) => {
      expect(text.length).toBeLessThanOrEqual(20_001);
      const result = compileExpression(text);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe(code);
        if (code === ExpressionErrorCode.TooDeep) expect(result.error.message).toBe('The expression nests more than 200 levels deep');
      }
    });

    it('compiles and evaluates the deepest allowed nesting, through every precedence level', () => {
      expect(attempt(`${'('.repeat(200)}1${')'.repeat(200)}`)).toEqual({ values: HOSTILE_CONTEXTS.map(() => 1) });
      let text = 'cs["n"]';
      for (let i = 0; i < 66; i++) text = `IIF(false || true && 1 == 1 && 0 < 1 + 2 * -(${text}), 1, 1)`;
      const result = compileExpression(text);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.expression.evaluate({ cs: { n: 1 } })).toBe(1);
    });

    it('evaluates a 2,400-term concatenation iteratively', () => {
      const text = Array.from({ length: 2_400 }, () => '"a"').join('+');
      const result = compileExpression(text);
      expect(text.length).toBeLessThanOrEqual(EXPRESSION_LIMITS.maxLength);
      expect(result.ok && (result.expression.evaluate() as string).length).toBe(2_400);
    });
  });

  it('has no code path that evaluates code or loads modules at run time', () => {
    const sources = readdirSync(__dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const code = readFileSync(join(__dirname, file), 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
      expect({
        file,
        hits:
          code.match(
            /\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bimport\s*\(|\brequire\s*\(|from\s+'(node:)?(vm|fs|child_process|net|http)'/g,
          ) ?? [],
      }).toEqual({ file, hits: [] });
    }
  });
});
