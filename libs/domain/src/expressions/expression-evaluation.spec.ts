import { compileExpression, compileExpressionOrThrow } from './expression-compiler';
import { AttributeValues, ExpressionContext } from './expression-context';
import { ExpressionError, ExpressionErrorCode } from './expression-error';
import { EXPRESSION_LIMITS } from './expression-limits';
import { ExpressionValue } from './expression-value';

const DN = '"uid=" + Lower(cs["givenName"]) + "." + Lower(cs["sn"]) + ",ou=people,dc=example,dc=org"';
const UAC = 'IIF(Eq(mv["Status"], "Archived"), DisableUser(Coalesce(cs["userAccountControl"], 512)), EnableUser(512))';

const CONTEXT: ExpressionContext = {
  mv: {
    Status: 'Active',
    'Display Name': 'Ada Lovelace',
    Emails: ['a@x.org', null, 'b@x.org', undefined],
    Start: new Date('2025-01-01T00:00:00Z'),
    Count: 3,
  },
  cs: { givenName: 'Ada', sn: 'Lovelace', userAccountControl: 514 },
};

const run = (text: string, context: ExpressionContext = CONTEXT): ExpressionValue => compileExpressionOrThrow(text).evaluate(context);

function evaluationError(text: string, context: ExpressionContext = CONTEXT): ExpressionError {
  const compiled = compileExpressionOrThrow(text);
  try {
    compiled.evaluate(context);
  } catch (e) {
    if (e instanceof ExpressionError) return e;
    throw e;
  }
  throw new Error(`evaluated without error: ${text}`);
}

describe('expression evaluation', () => {
  it('evaluates the two mappings of the issue', () => {
    expect(run(DN)).toBe('uid=ada.lovelace,ou=people,dc=example,dc=org');
    expect(run(UAC)).toBe(512);
    expect(run(UAC, { mv: { status: 'Archived' }, cs: { userAccountControl: '66048' } })).toBe(66050);
    expect(run(UAC, { mv: { Status: 'Archived' } })).toBe(514);
    expect(run(DN, { cs: {} })).toBe('uid=.,ou=people,dc=example,dc=org');
  });

  describe('attribute access', () => {
    it('matches names ignoring case, preferring the exact spelling', () => {
      expect(run('cs["GIVENNAME"] + mv["display name"]')).toBe('AdaAda Lovelace');
      expect(run('cs["Name"]', { cs: { name: 'lower', Name: 'exact' } })).toBe('exact');
      expect(run('cs["NAME"]', { cs: { name: 'lower', Name: 'exact' } })).toBe('lower');
    });

    it('gives null for a missing attribute and a list for a multi-valued one, without null entries', () => {
      expect(run('cs["nope"]')).toBeNull();
      expect(run('mv["Emails"]')).toEqual(['a@x.org', 'b@x.org']);
      expect(run('cs["x"]', {})).toBeNull();
      expect(run('cs["x"]', { cs: null })).toBeNull();
    });

    it.each<[string, ExpressionContext['cs']]>([
      ['a record', { givenName: 'Ada' }],
      ['a null-prototype record', Object.assign(Object.create(null) as object, { givenName: 'Ada' })],
      ['a Map', new Map([['givenName', 'Ada']])],
      ['a Map with lower-case keys', new Map([['givenname', 'Ada']])],
      ['a Map with other spelling', new Map([['GivenName', 'Ada']])],
      ['AttributeValues', AttributeValues.from({ GivenName: 'Ada' })],
      ['AttributeValues from a Map', AttributeValues.from(new Map([['givenName', 'Ada']]))],
      ['a lookup function', (name: string) => (name.toLowerCase() === 'givenname' ? 'Ada' : undefined)],
    ])('reads from %s', (_kind, cs) => {
      expect(run('Lower(cs["givenName"])', { cs })).toBe('ada');
      expect(run('cs["other"]', { cs })).toBeNull();
    });

    it('converts host values: bigint, dates copied, nested nulls dropped', () => {
      const start = new Date('2025-01-01T00:00:00Z');
      const value = run('cs["d"]', { cs: { d: start } }) as Date;
      expect(value).toEqual(start);
      expect(value).not.toBe(start);
      value.setUTCFullYear(1999);
      expect(start.getUTCFullYear()).toBe(2025);
      expect(run('cs["n"] + 1', { cs: { n: 41n } })).toBe(42);
      expect(run('cs["big"]', { cs: { big: 133801632000000000n } })).toBe('133801632000000000');
      expect(run('FromFileTime(cs["big"])', { cs: { big: 133801632000000000n } })).toEqual(new Date('2025-01-01T00:00:00Z'));
      const list = ['a'];
      const copy = run('cs["l"]', { cs: { l: list } }) as string[];
      expect(copy).toEqual(list);
      expect(copy).not.toBe(list);
    });

    it.each<[string, unknown]>([
      ['an object', { nested: true }],
      ['a function', () => 1],
      ['a symbol', Symbol('s')],
      ['NaN', NaN],
      ['Infinity', Infinity],
      ['an invalid date', new Date(NaN)],
      ['a nested list', [['a']]],
      ['an object in a list', [{}]],
      ['a fake date', Object.create(Date.prototype) as object],
      ['a buffer', new Uint8Array([1, 2])],
    ])('refuses %s as an attribute value', (_kind, value) => {
      const error = evaluationError('cs["x"]', { cs: { x: value } });
      expect(error.code).toBe(ExpressionErrorCode.InvalidContext);
      expect(error.token).toBe('cs["x"]');
      expect(error.phase).toBe('evaluate');
    });

    it('refuses a context source that is not an object, Map or function', () => {
      expect(evaluationError('cs["x"]', { cs: 'text' as never }).code).toBe(ExpressionErrorCode.InvalidContext);
      expect(evaluationError('cs["x"]', { cs: ['a'] as never }).code).toBe(ExpressionErrorCode.InvalidContext);
    });

    it('refuses an attribute value longer than the string limit', () => {
      const error = evaluationError('Length(cs["x"])', { cs: { x: 'a'.repeat(EXPRESSION_LIMITS.maxStringLength + 1) } });
      expect(error.code).toBe(ExpressionErrorCode.LimitExceeded);
    });

    it('rejects AttributeValues whose names differ only in case', () => {
      expect(() => AttributeValues.from({ a: 1, A: 2 })).toThrow(ExpressionError);
      expect(AttributeValues.from({ a: 1, b: [2, null] }).size).toBe(2);
    });
  });

  describe('inputs', () => {
    it('lists the attributes read, once each, in order, as first spelt', () => {
      const compiled = compileExpressionOrThrow('cs["sn"] + mv["Display Name"] + cs["SN"] + cs["givenName"] + mv["display name"]');
      expect(compiled.inputs).toEqual({ mv: ['Display Name'], cs: ['sn', 'givenName'] });
      expect(compiled.references.map((r) => [r.source, r.name, r.position.column, r.token])).toEqual([
        ['cs', 'sn', 1, 'cs["sn"]'],
        ['mv', 'Display Name', 12, 'mv["Display Name"]'],
        ['cs', 'SN', 33, 'cs["SN"]'],
        ['cs', 'givenName', 44, 'cs["givenName"]'],
        ['mv', 'display name', 62, 'mv["display name"]'],
      ]);
      expect(Object.isFrozen(compiled.inputs.cs)).toBe(true);
    });

    it('counts attributes in branches that may not be evaluated', () => {
      expect(compileExpressionOrThrow('IIF(true, cs["a"], cs["b"])').inputs.cs).toEqual(['a', 'b']);
      expect(compileExpressionOrThrow('"constant"').inputs).toEqual({ mv: [], cs: [] });
    });

    it('reports which inputs are missing or empty for an object', () => {
      const compiled = compileExpressionOrThrow('cs["givenName"] + cs["sn"] + Join(mv["Emails"], ",") + mv["Status"]');
      expect(compiled.missingInputs({ cs: { givenName: 'Ada' }, mv: { Emails: [], status: 'x' } })).toEqual({ mv: ['Emails'], cs: ['sn'] });
      expect(compiled.missingInputs()).toEqual({ mv: ['Emails', 'Status'], cs: ['givenName', 'sn'] });
    });

    it('names the functions called and whether the result is deterministic', () => {
      const compiled = compileExpressionOrThrow(UAC);
      expect(compiled.functions).toEqual(['IIF', 'Eq', 'DisableUser', 'Coalesce', 'EnableUser']);
      expect(compiled.deterministic).toBe(true);
      expect(compileExpressionOrThrow('RandomPassword(12)').deterministic).toBe(false);
      expect(compileExpressionOrThrow('lower(capitalize("a"))').functions).toEqual(['Lower', 'Capitalise']);
    });
  });

  describe('operators', () => {
    it.each<[string, ExpressionValue]>([
      ['"uid=" + null', 'uid='],
      ['null + "x"', 'x'],
      ['null + null', null],
      ['null + 1', null],
      ['1 + null', null],
      ['1 + 2', 3],
      ['"a" + true', 'atrue'],
      ['"d:" + mv["Start"]', 'd:2025-01-01T00:00:00.000Z'],
      ['"n" + 1.5', 'n1.5'],
      ['null - 1', null],
      ['2 * null', null],
      ['null / 2', null],
      ['-null', null],
      ['null == null', true],
      ['null != null', false],
      ['null == ""', false],
      ['cs["nope"] == null', true],
      ['1 == "1"', false],
      ['"a" == "A"', false],
      ['mv["Emails"] == mv["Emails"]', true],
      ['mv["Start"] == FromFileTime("133801632000000000")', true],
      ['null < 1', false],
      ['null >= 1', false],
      ['1 > null', false],
      ['null < null', false],
      ['mv["Start"] < Now()', true],
      ['false < true', true],
      ['null && true', false],
      ['null || true', true],
      ['!null', true],
      ['false && 1 / 0 == 1', false],
      ['true || 1 / 0 == 1', true],
      ['0.1 + 0.2', 0.30000000000000004],
      ['0 * -1', 0],
    ])('%s → %p', (text, expected) => {
      expect(run(text)).toEqual(expected);
    });

    it.each<[string, ExpressionErrorCode, number, string]>([
      ['1 / 0', ExpressionErrorCode.DivisionByZero, 3, '/'],
      ['5 % (2 - 2)', ExpressionErrorCode.DivisionByZero, 3, '%'],
      ['1e308 * 10', ExpressionErrorCode.Overflow, 7, '*'],
      ['1e308 + 1e308', ExpressionErrorCode.Overflow, 7, '+'],
      ['"a" - 1', ExpressionErrorCode.Type, 5, '-'],
      ['true * 2', ExpressionErrorCode.Type, 6, '*'],
      ['-"a"', ExpressionErrorCode.Type, 1, '-'],
      ['mv["Emails"] + "x"', ExpressionErrorCode.Type, 14, '+'],
      ['true + 1', ExpressionErrorCode.Type, 6, '+'],
      ['mv["Start"] + 1', ExpressionErrorCode.Type, 13, '+'],
      ['1 < "2"', ExpressionErrorCode.Type, 3, '<'],
      ['mv["Emails"] > 1', ExpressionErrorCode.Type, 14, '>'],
      ['"a" && true', ExpressionErrorCode.Type, 1, '"a"'],
      ['false || 1', ExpressionErrorCode.Type, 10, '1'],
      ['!"a"', ExpressionErrorCode.Type, 2, '"a"'],
      ['IIF(1, 2, 3)', ExpressionErrorCode.Type, 5, '1'],
      ['Left(cs["sn"], "x")', ExpressionErrorCode.Type, 16, '"x"'],
      ['1 +\n  Lower( mv [ "Emails" ] )', ExpressionErrorCode.Type, 10, 'mv [ "Emails" ]'],
    ])('fails %j with %s at column %i (token %s)', (text, code, column, token) => {
      const error = evaluationError(text);
      expect({ code: error.code, column: error.position.column, token: error.token, phase: error.phase }).toEqual({
        code,
        column,
        token,
        phase: 'evaluate',
      });
    });

    it('names the function and argument in evaluation errors', () => {
      expect(evaluationError('Left("abc", -1)').message).toBe('Left: count must be 0 or more, got -1');
      expect(evaluationError('Lower(mv["Emails"])').message).toMatch(/^Lower: value must be a single value, got a list of 2; use Join/);
    });
  });

  describe('limits', () => {
    const grow = (levels: number) => {
      let text = '"aaaaaaaaaa"';
      for (let i = 1; i < levels; i++) text = `Replace(${text}, "a", "aaaaaaaaaa")`;
      return text;
    };

    it('lets a result grow up to the string limit', () => {
      expect(run(`Length(${grow(6)})`)).toBe(1_000_000);
    });

    it('stops a result past the string limit before building it', () => {
      const error = evaluationError(`Length(${grow(7)})`);
      expect(error.code).toBe(ExpressionErrorCode.LimitExceeded);
      expect(error.message).toMatch(/10,000,000 characters long; the limit is 1,000,000/);
      expect(error.token).toBe('Replace');
    });

    it('stops repeated concatenation at the string limit', () => {
      const big = grow(6);
      const error = evaluationError(`${big} + "x"`);
      expect(error.code).toBe(ExpressionErrorCode.LimitExceeded);
      expect(error.token).toBe('+');
    });

    it('stops an evaluation whose total work exceeds the budget', () => {
      const text = Array.from({ length: 25 }, () => `Length(${grow(6)})`).join(' + ');
      expect(text.length).toBeLessThan(EXPRESSION_LIMITS.maxLength);
      const error = evaluationError(text);
      expect(error.code).toBe(ExpressionErrorCode.LimitExceeded);
      expect(error.message).toMatch(/in total/);
    });

    it('stops Join and Split past their limits', () => {
      const long = 'x'.repeat(600_000);
      expect(evaluationError('Join(cs["l"], "")', { cs: { l: [long, long] } }).code).toBe(ExpressionErrorCode.LimitExceeded);
      expect(evaluationError('Split(cs["s"], ",")', { cs: { s: `${'a,'.repeat(EXPRESSION_LIMITS.maxListLength)}a` } }).message).toMatch(
        /100,001 values; the limit is 100,000/,
      );
      expect((run('Split(cs["s"], ",")', { cs: { s: `${'a,'.repeat(EXPRESSION_LIMITS.maxListLength - 1)}a` } }) as string[]).length).toBe(
        EXPRESSION_LIMITS.maxListLength,
      );
    });

    it('starts every evaluation with a fresh budget', () => {
      const compiled = compileExpressionOrThrow(`Length(${grow(6)})`);
      for (let i = 0; i < 25; i++) expect(compiled.evaluate()).toBe(1_000_000);
    });
  });

  it('never throws from compileExpression for bad text, and compileExpressionOrThrow throws the same error', () => {
    const result = compileExpression('Lower(');
    expect(result.ok).toBe(false);
    expect(() => compileExpressionOrThrow('Lower(')).toThrow(ExpressionError);
    for (const notText of [undefined, null, 42, {}]) {
      const bad = compileExpression(notText as unknown as string);
      expect(!bad.ok && bad.error.message).toBe('The expression must be text');
    }
  });

  it('is reusable: one compiled expression, many objects', () => {
    const compiled = compileExpressionOrThrow(DN);
    const names = ['Ada', 'Grace', 'Alan'].map((givenName) => compiled.evaluate({ cs: { givenName, sn: 'X' } }));
    expect(names).toEqual([
      'uid=ada.x,ou=people,dc=example,dc=org',
      'uid=grace.x,ou=people,dc=example,dc=org',
      'uid=alan.x,ou=people,dc=example,dc=org',
    ]);
    expect(Object.isFrozen(compiled)).toBe(true);
  });
});
