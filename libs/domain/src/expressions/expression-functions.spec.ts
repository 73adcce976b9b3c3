import { compileExpression, compileExpressionOrThrow } from './expression-compiler';
import { ExpressionContext } from './expression-context';
import { ExpressionError, ExpressionErrorCode } from './expression-error';
import { EXAMPLE_CONTEXT, EXAMPLE_NOW, EXPRESSION_FUNCTIONS, listExpressionFunctions, RANDOM_PASSWORD_MAX } from './expression-functions';
import { ExpressionValue, formatExpressionValue } from './expression-value';

const clock = () => new Date(EXAMPLE_NOW);

const CONTEXT: ExpressionContext = {
  mv: {
    ...EXAMPLE_CONTEXT.mv,
    Mixed: [1, true, new Date('2025-01-02T03:04:05.000Z'), 'x'],
    Codes: [1, 2, 3],
  },
  cs: {
    ...EXAMPLE_CONTEXT.cs,
    empty: '',
    blank: '  ',
    four: 4,
    badFormat: 'yyy',
  },
};

/** An expected evaluation error, by code. */
interface Fails {
  fails: ExpressionErrorCode;
  phase?: 'compile';
}
const fails = (code: ExpressionErrorCode): Fails => ({ fails: code });
const rejects = (code: ExpressionErrorCode): Fails => ({ fails: code, phase: 'compile' });
const date = (iso: string) => new Date(iso);

type Case = [expression: string, expected: ExpressionValue | Fails];

/** Normal, null and edge cases for every function of the table (a test below checks none is missing). */
const CASES: Record<string, Case[]> = {
  Trim: [
    ['Trim("  a b  ")', 'a b'],
    ['Trim("\\t\\n x \\u00a0")', 'x'],
    ['Trim("")', ''],
    ['Trim(null)', null],
    ['Trim(42)', '42'],
    ['Trim(mv["Codes"])', fails(ExpressionErrorCode.Type)],
  ],
  Upper: [
    ['Upper("Lovelace")', 'LOVELACE'],
    ['Upper("straße")', 'STRASSE'],
    ['Upper(null)', null],
    ['Upper(true)', 'TRUE'],
    ['Upper("")', ''],
  ],
  Lower: [
    ['Lower("ÀDA")', 'àda'],
    ['Lower(cs["missing"])', null],
    ['Lower(12)', '12'],
    ['Lower(mv["Proxy Addresses"])', fails(ExpressionErrorCode.Type)],
  ],
  Capitalise: [
    ['Capitalise("ada lovelace")', 'Ada Lovelace'],
    ['Capitalise("ADA")', 'Ada'],
    ['Capitalise("  two  spaces")', '  Two  Spaces'],
    ['Capitalise("élodie marie-claire")', 'Élodie Marie-Claire'],
    ['Capitalise("")', ''],
    ['Capitalise(null)', null],
    ['capitalize("x")', 'X'],
  ],
  Left: [
    ['Left("Ada", 1)', 'A'],
    ['Left("Ada", 0)', ''],
    ['Left("Ada", 10)', 'Ada'],
    ['Left("Ada", "2")', 'Ad'],
    ['Left("😀x", 1)', '😀'],
    ['Left(null, 1)', null],
    ['Left("Ada", null)', null],
    ['Left("Ada", -1)', fails(ExpressionErrorCode.InvalidValue)],
    ['Left("Ada", 1.5)', fails(ExpressionErrorCode.InvalidValue)],
    ['Left("Ada", "x")', fails(ExpressionErrorCode.Type)],
  ],
  Right: [
    ['Right("EMP000123", 3)', '123'],
    ['Right("Ada", 0)', ''],
    ['Right("Ada", 5)', 'Ada'],
    ['Right("x😀", 1)', '😀'],
    ['Right(null, 2)', null],
    ['Right("Ada", -2)', fails(ExpressionErrorCode.InvalidValue)],
  ],
  Substring: [
    ['Substring("Lovelace", 4, 4)', 'lace'],
    ['Substring("Lovelace", 4)', 'lace'],
    ['Substring("Lovelace", 0, 4)', 'Love'],
    ['Substring("Ada", 5, 2)', ''],
    ['Substring("Ada", 1, 0)', ''],
    ['Substring("a😀b", 1, 1)', '😀'],
    ['Substring(null, 0, 1)', null],
    ['Substring("Ada", null)', null],
    ['Substring("Ada", 0, null)', null],
    ['Substring("Ada", -1, 1)', fails(ExpressionErrorCode.InvalidValue)],
    ['Substring("Ada", 1, -1)', fails(ExpressionErrorCode.InvalidValue)],
  ],
  Replace: [
    ['Replace("a-b-c", "-", "+")', 'a+b+c'],
    ['Replace("Aba", "a", "x")', 'Abx'],
    ['Replace("aaa", "a", "$&")', '$&$&$&'],
    ['Replace("a-b", "-", null)', 'ab'],
    ['Replace("abc", null, "x")', 'abc'],
    ['Replace("abc", "", "x")', 'abc'],
    ['Replace(null, "a", "b")', null],
  ],
  StartsWith: [
    ['StartsWith("Lovelace", "Love")', true],
    ['StartsWith("Lovelace", "love")', false],
    ['StartsWith("x", "")', true],
    ['StartsWith(null, "x")', null],
    ['StartsWith("x", null)', null],
  ],
  EndsWith: [
    ['EndsWith("ada@example.org", "@example.org")', true],
    ['EndsWith("ada@example.org", "@EXAMPLE.ORG")', false],
    ['EndsWith(null, "x")', null],
    ['EndsWith(123, 3)', true],
  ],
  Contains: [
    ['Contains("abc", "b")', true],
    ['Contains("abc", "B")', false],
    ['Contains(null, "a")', null],
    ['Contains(mv["Proxy Addresses"], "ada")', fails(ExpressionErrorCode.Type)],
  ],
  Length: [
    ['Length("Ada")', 3],
    ['Length("")', 0],
    ['Length("😀")', 1],
    ['Length(12345)', 5],
    ['Length(mv["Proxy Addresses"])', 2],
    ['Length(Split("", ","))', 0],
    ['Length(null)', null],
  ],
  IsNullOrEmpty: [
    ['IsNullOrEmpty(null)', true],
    ['IsNullOrEmpty("")', true],
    ['IsNullOrEmpty(Split("", ","))', true],
    ['IsNullOrEmpty(" ")', false],
    ['IsNullOrEmpty(0)', false],
    ['IsNullOrEmpty(false)', false],
  ],
  IsNullOrWhitespace: [
    ['IsNullOrWhitespace(null)', true],
    ['IsNullOrWhitespace("")', true],
    ['IsNullOrWhitespace(" \\t\\n")', true],
    ['IsNullOrWhitespace(Split("", ","))', true],
    ['IsNullOrWhitespace("a")', false],
    ['IsNullOrWhitespace(0)', false],
  ],
  Split: [
    ['Split("a;b;;c", ";")', ['a', 'b', 'c']],
    ['Split(" a ; ;b ;", ";")', ['a', 'b']],
    ['Split(" ; ", ";")', []],
    ['Split("a::b::c", "::")', ['a', 'b', 'c']],
    ['Split("abc", ";")', ['abc']],
    ['Split("", ";")', []],
    ['Split(121, 2)', ['1', '1']],
    ['Split(null, ";")', null],
    ['Split("a", null)', null],
    ['Split("a", cs["empty"])', fails(ExpressionErrorCode.InvalidValue)],
    ['Split("a,b", "")', rejects(ExpressionErrorCode.InvalidArgument)],
  ],
  Join: [
    ['Join(mv["Proxy Addresses"], "; ")', 'SMTP:ada@example.org; smtp:a.lovelace@example.org'],
    ['Join(mv["Mixed"], "|")', '1|true|2025-01-02T03:04:05.000Z|x'],
    ['Join("single", ",")', 'single'],
    ['Join(Split("", ","), ",")', ''],
    ['Join(Split("a,b", ","), null)', 'ab'],
    ['Join(null, ",")', null],
  ],
  CollectionContains: [
    ['CollectionContains(mv["Proxy Addresses"], "SMTP:ada@example.org")', true],
    ['CollectionContains(mv["Proxy Addresses"], "smtp:ADA@example.org")', false],
    ['CollectionContains(mv["Codes"], 2)', true],
    ['CollectionContains(Split("1,2", ","), 2)', false],
    ['CollectionContains("a", "a")', true],
    ['CollectionContains(null, "x")', false],
    ['CollectionContains(mv["Codes"], null)', false],
    ['CollectionContains(mv["Codes"], mv["Codes"])', fails(ExpressionErrorCode.Type)],
  ],
  Coalesce: [
    ['Coalesce(null, "a")', 'a'],
    ['Coalesce(cs["empty"], "b")', 'b'],
    ['Coalesce(Split("", ","), "x")', 'x'],
    ['Coalesce(0, 1)', 0],
    ['Coalesce(false, true)', false],
    ['Coalesce(cs["missing"])', null],
    ['Coalesce(null, "")', null],
    ['Coalesce(1, 1 / 0)', 1],
  ],
  IIF: [
    ['IIF(true, "a", "b")', 'a'],
    ['IIF(false, "a", "b")', 'b'],
    ['IIF(null, "a", "b")', 'b'],
    ['IIF(1 < 2, 1, 2)', 1],
    ['IIF(true, "a", 1 / 0)', 'a'],
    ['IIF(false, 1 / 0, "b")', 'b'],
    ['IIF("yes", "a", "b")', fails(ExpressionErrorCode.Type)],
  ],
  Eq: [
    ['Eq(1, 1)', true],
    ['Eq(1, "1")', false],
    ['Eq(null, null)', true],
    ['Eq(null, "")', false],
    ['Eq("a", "A")', false],
    ['Eq(FromFileTime(cs["accountExpires"]), FromFileTime("133801632000000000"))', true],
    ['Eq(Split("a,b", ","), Split("a,b", ","))', true],
    ['Eq(Split("a,b", ","), Split("b,a", ","))', false],
    ['Eq(Split("a", ","), "a")', false],
  ],
  Now: [
    ['Now()', date(EXAMPLE_NOW)],
    ['Eq(Now(), Now())', true],
    ['Now() > FromFileTime(cs["accountExpires"])', true],
  ],
  Today: [
    ['Today()', date('2025-01-15T00:00:00.000Z')],
    ['FormatDate(Today(), "HH:mm:ss.fff")', '00:00:00.000'],
    ['Today() < Now()', true],
  ],
  FormatDate: [
    ['FormatDate("2025-01-15T10:30:05.123Z", "yyyy-MM-ddTHH:mm:ss.fffZ")', '2025-01-15T10:30:05.123Z'],
    ['FormatDate("2025-01-05T04:03:02.123Z", "d/M/yy H:m:s ff f")', '5/1/25 4:3:2 12 1'],
    ['FormatDate("2025-01-15T12:30:00+02:00", "HH:mm")', '10:30'],
    ['FormatDate("20250115103000.0Z", "yyyyMMddHHmmss.0Z")', '20250115103000.0Z'],
    ['FormatDate("0099-12-31", "yyyy")', '0099'],
    ["FormatDate(Now(), \"'yyyy' ''\")", "yyyy '"],
    ['FormatDate(null, "yyyy")', null],
    ['FormatDate("2025-01-15", null)', null],
    ['FormatDate("not a date", "yyyy")', fails(ExpressionErrorCode.InvalidValue)],
    ['FormatDate("2025-02-30", "yyyy")', fails(ExpressionErrorCode.InvalidValue)],
    ['FormatDate(12, "yyyy")', fails(ExpressionErrorCode.Type)],
    ['FormatDate(Now(), cs["badFormat"])', fails(ExpressionErrorCode.InvalidValue)],
    ['FormatDate(Now(), "yyy")', rejects(ExpressionErrorCode.InvalidArgument)],
    ['FormatDate(Now(), "DD")', rejects(ExpressionErrorCode.InvalidArgument)],
    ['FormatDate(Now(), "\'unterminated")', rejects(ExpressionErrorCode.InvalidArgument)],
  ],
  ToFileTime: [
    ['ToFileTime("2025-01-15T00:00:00Z")', '133813728000000000'],
    ['ToFileTime("1601-01-01T00:00:00Z")', '0'],
    ['ToFileTime(mv["Employee End Date"])', '133878528000000000'],
    ['ToFileTime(null)', null],
    ['ToFileTime("1600-12-31")', fails(ExpressionErrorCode.InvalidValue)],
    ['ToFileTime(123)', fails(ExpressionErrorCode.Type)],
  ],
  FromFileTime: [
    ['FromFileTime("133801632000000000")', date('2025-01-01T00:00:00.000Z')],
    ['FromFileTime(116444736000000000)', date('1970-01-01T00:00:00.000Z')],
    ['FromFileTime("1")', date('1601-01-01T00:00:00.000Z')],
    ['FromFileTime(0)', null],
    ['FromFileTime("9223372036854775807")', null],
    ['FromFileTime(9223372036854775807)', null],
    ['FromFileTime(null)', null],
    ['FromFileTime("abc")', fails(ExpressionErrorCode.InvalidValue)],
    ['FromFileTime(-1)', fails(ExpressionErrorCode.InvalidValue)],
    ['FromFileTime(1.5)', fails(ExpressionErrorCode.InvalidValue)],
    ['FromFileTime(true)', fails(ExpressionErrorCode.Type)],
    ['FromFileTime(ToFileTime("2025-06-30T12:34:56.789Z"))', date('2025-06-30T12:34:56.789Z')],
  ],
  ToString: [
    ['ToString(512)', '512'],
    ['ToString(1.5)', '1.5'],
    ['ToString(true)', 'true'],
    ['ToString(mv["Employee End Date"])', '2025-03-31T00:00:00.000Z'],
    ['ToString("x")', 'x'],
    ['ToString(null)', null],
    ['ToString(mv["Codes"])', fails(ExpressionErrorCode.Type)],
  ],
  ToInt: [
    ['ToInt(" 42 ")', 42],
    ['ToInt("-7.9")', -7],
    ['ToInt(3.99)', 3],
    ['ToInt(-0.5)', 0],
    ['ToInt("1e3")', 1000],
    ['ToInt(true)', 1],
    ['ToInt("")', null],
    ['ToInt(cs["blank"])', null],
    ['ToInt(null)', null],
    ['ToInt("abc")', fails(ExpressionErrorCode.InvalidValue)],
    ['ToInt("12abc")', fails(ExpressionErrorCode.InvalidValue)],
    ['ToInt("1e400")', fails(ExpressionErrorCode.Overflow)],
    ['ToInt("99999999999999999999")', fails(ExpressionErrorCode.Overflow)],
    ['ToInt(Now())', fails(ExpressionErrorCode.Type)],
  ],
  ToDecimal: [
    ['ToDecimal("12.50")', 12.5],
    ['ToDecimal("1e3")', 1000],
    ['ToDecimal(".5")', 0.5],
    ['ToDecimal(false)', 0],
    ['ToDecimal("")', null],
    ['ToDecimal(null)', null],
    ['ToDecimal("1,5")', fails(ExpressionErrorCode.InvalidValue)],
    ['ToDecimal(mv["Codes"])', fails(ExpressionErrorCode.Type)],
  ],
  EscapeDN: [
    ['EscapeDN("Lovelace, Ada")', 'Lovelace\\, Ada'],
    ['EscapeDN("#1 ")', '\\#1\\ '],
    ['EscapeDN(" a")', '\\ a'],
    ['EscapeDN(" ")', '\\ '],
    ['EscapeDN("a#b=c")', 'a#b=c'],
    ['EscapeDN("a\\"b+c;d<e>f\\\\g")', 'a\\"b\\+c\\;d\\<e\\>f\\\\g'],
    ['EscapeDN("\\u0000")', '\\00'],
    ['EscapeDN("")', ''],
    ['EscapeDN(null)', null],
  ],
  RandomPassword: [
    ['Length(RandomPassword(16))', 16],
    ['Length(RandomPassword("8"))', 8],
    [`Length(RandomPassword(${RANDOM_PASSWORD_MAX}))`, RANDOM_PASSWORD_MAX],
    ['RandomPassword(null)', null],
    ['RandomPassword(cs["four"])', fails(ExpressionErrorCode.InvalidValue)],
    ['RandomPassword(7)', rejects(ExpressionErrorCode.InvalidArgument)],
    [`RandomPassword(${RANDOM_PASSWORD_MAX + 1})`, rejects(ExpressionErrorCode.InvalidArgument)],
  ],
  EnableUser: [
    ['EnableUser(514)', 512],
    ['EnableUser(512)', 512],
    ['EnableUser("66050")', 66048],
    ['EnableUser(null)', null],
    ['EnableUser("x")', fails(ExpressionErrorCode.Type)],
  ],
  DisableUser: [
    ['DisableUser(512)', 514],
    ['DisableUser(514)', 514],
    ['DisableUser(Coalesce(cs["missing"], 512))', 514],
    ['DisableUser(null)', null],
    ['DisableUser(1.5)', fails(ExpressionErrorCode.InvalidValue)],
  ],
  SetBit: [
    ['SetBit(512, 0x10000)', 66048],
    ['SetBit(514, 2)', 514],
    ['SetBit(0x7FFFFFFF, 0x80000000)', 4294967295],
    ['SetBit(-2147483646, 2)', -2147483646],
    ['SetBit(null, 2)', null],
    ['SetBit(1, null)', null],
    ['SetBit(1, 0)', fails(ExpressionErrorCode.InvalidValue)],
    ['SetBit(1, -2)', fails(ExpressionErrorCode.InvalidValue)],
  ],
  ClearBit: [
    ['ClearBit(66050, 0x10002)', 512],
    ['ClearBit(512, 2)', 512],
    ['ClearBit(-2147483646, 2)', -2147483648],
    ['ClearBit(null, 1)', null],
    ['ClearBit(1, 1.5)', fails(ExpressionErrorCode.InvalidValue)],
  ],
  HasBit: [
    ['HasBit(514, 2)', true],
    ['HasBit(512, 2)', false],
    ['HasBit(514, 0x202)', true],
    ['HasBit(514, 0x203)', false],
    ['HasBit("514", "2")', true],
    ['HasBit(-2147483646, 0x80000000)', true],
    ['HasBit(null, 2)', null],
  ],
};

function outcome(expression: string): ExpressionValue | Fails {
  const compiled = compileExpression(expression);
  if (!compiled.ok) return { fails: compiled.error.code, phase: 'compile' };
  try {
    return compiled.expression.evaluate(CONTEXT, { now: clock });
  } catch (e) {
    if (e instanceof ExpressionError) return fails(e.code);
    throw e;
  }
}

describe('expression functions', () => {
  describe.each(Object.keys(CASES))('%s', (name) => {
    it.each(CASES[name])('%s → %p', (expression, expected) => {
      expect(outcome(expression)).toEqual(expected);
    });
  });

  it('has normal, null and failure cases for every registered function', () => {
    expect(Object.keys(CASES).sort()).toEqual(EXPRESSION_FUNCTIONS.map((f) => f.name).sort());
    for (const def of EXPRESSION_FUNCTIONS) {
      const cases = CASES[def.name];
      expect(cases.length).toBeGreaterThanOrEqual(3);
      if (def.parameters.length > 0) {
        const nullCase = cases.some(([expression]) => /null|\["(missing|empty|blank)"\]/.test(expression));
        expect({ name: def.name, nullCase }).toEqual({ name: def.name, nullCase: true });
      }
    }
  });

  describe('documented examples evaluate to what docs/expressions.md says', () => {
    const examples = EXPRESSION_FUNCTIONS.flatMap((def) =>
      def.examples.filter((e) => e.deterministic !== false).map((e) => [def.name, e.expression, e.result] as const),
    );
    it.each(examples)('%s: %s → %s', (_name, expression, result) => {
      expect(formatExpressionValue(compileExpressionOrThrow(expression).evaluate(EXAMPLE_CONTEXT, { now: clock }))).toBe(result);
    });
  });

  it('finds functions ignoring case and by alias', () => {
    expect(outcome('LOWER("A") + lower("B") + LoWeR("C")')).toBe('abc');
    expect(outcome('iif(TRUE, capitalize("x"), "y")')).toBe('X');
  });

  it('lists every function with signature, description and example for the API', () => {
    const list = listExpressionFunctions();
    expect(list.map((f) => f.name)).toEqual(EXPRESSION_FUNCTIONS.map((f) => f.name));
    const left = list.find((f) => f.name === 'Left');
    expect(left).toMatchObject({ category: 'Text', signature: 'Left(value: text, count: whole number) → text', deterministic: true });
    expect(list.find((f) => f.name === 'Substring')?.signature).toBe(
      'Substring(value: text, start: whole number, [length: whole number]) → text',
    );
    expect(list.find((f) => f.name === 'Coalesce')?.signature).toBe('Coalesce(value: any, …) → any');
    expect(list.find((f) => f.name === 'Now')?.deterministic).toBe(false);
    for (const f of list) {
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.examples.length).toBeGreaterThan(0);
      expect(JSON.parse(JSON.stringify(f))).toEqual(f);
    }
  });

  it('covers every function listed in DOMAIN.md §4', () => {
    const domain =
      'Trim Upper Lower Capitalise Left Right Substring Replace StartsWith EndsWith Contains Length IsNullOrEmpty IsNullOrWhitespace Split Join CollectionContains Coalesce IIF Eq Now Today FormatDate ToFileTime FromFileTime ToString ToInt ToDecimal EscapeDN RandomPassword EnableUser DisableUser SetBit ClearBit HasBit';
    expect(EXPRESSION_FUNCTIONS.map((f) => f.name).sort()).toEqual(domain.split(' ').sort());
  });

  describe('Now and Today', () => {
    it('see one instant per evaluation, read from the injected clock', () => {
      let calls = 0;
      const tick = () => new Date(Date.UTC(2025, 0, 15, 10, 30, 0, calls++));
      const compiled = compileExpressionOrThrow(
        'FormatDate(Now(), "ss.fff") + "|" + FormatDate(Now(), "ss.fff") + "|" + FormatDate(Today(), "dd")',
      );
      expect(compiled.evaluate({}, { now: tick })).toBe('00.000|00.000|15');
      expect(compiled.evaluate({}, { now: tick })).toBe('00.001|00.001|15');
      expect(compiled.deterministic).toBe(false);
    });

    it('use the system clock by default', () => {
      const before = Date.now();
      const value = compileExpressionOrThrow('Now()').evaluate() as Date;
      expect(value.getTime()).toBeGreaterThanOrEqual(before);
      expect(value.getTime()).toBeLessThanOrEqual(Date.now());
    });

    it('take Today at midnight UTC even just before midnight', () => {
      expect(compileExpressionOrThrow('Today()').evaluate({}, { now: () => new Date('2025-01-15T23:59:59.999Z') })).toEqual(
        new Date('2025-01-15T00:00:00.000Z'),
      );
    });

    it('reject a clock that returns something other than a valid date', () => {
      const compiled = compileExpressionOrThrow('Now()');
      expect(() => compiled.evaluate({}, { now: () => new Date(NaN) })).toThrow(ExpressionError);
      expect(() => compiled.evaluate({}, { now: () => 'soon' as unknown as Date })).toThrow(/clock/);
    });
  });

  describe('RandomPassword', () => {
    const draw = (n: number) => compileExpressionOrThrow(`RandomPassword(${n})`).evaluate() as string;

    it('uses Web Crypto, never Math.random', () => {
      const crypto = jest.spyOn(globalThis.crypto, 'getRandomValues');
      const random = jest.spyOn(Math, 'random');
      try {
        draw(12);
        expect(crypto).toHaveBeenCalled();
        expect(random).not.toHaveBeenCalled();
      } finally {
        crypto.mockRestore();
        random.mockRestore();
      }
    });

    it('always contains an upper-case letter, a lower-case letter, a digit and a symbol, without look-alikes', () => {
      for (let i = 0; i < 300; i++) {
        const password = draw(8);
        expect(password).toMatch(/^[A-HJ-NP-Za-km-z2-9!#$%&*+\-=?@^_]{8}$/);
        expect(password).toMatch(/[A-Z]/);
        expect(password).toMatch(/[a-z]/);
        expect(password).toMatch(/[0-9]/);
        expect(password).toMatch(/[!#$%&*+\-=?@^_]/);
      }
    });

    it('does not repeat itself and uses the whole alphabet', () => {
      const passwords = Array.from({ length: 200 }, () => draw(32));
      expect(new Set(passwords).size).toBe(200);
      expect(new Set(passwords.join('')).size).toBe(70);
    });
  });
});
