import { startWebApp, WebHarness } from './harness';

const TEST = '/api/v1/synchronisation/test-expression';
const FUNCTIONS = '/api/v1/synchronisation/expression-functions';

interface Res {
  status: number;
  body: any;
}

function expectValidation(res: Res, ...fields: string[]): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  for (const field of fields) expect(Object.keys(res.body.validationErrors ?? {})).toContain(field);
}

describe('expression playground (/api/v1/synchronisation/test-expression) and function reference', () => {
  let h: WebHarness;
  const test = (body: object) => h.http.post(TEST).set('X-Api-Key', h.adminKey).send(body);

  beforeAll(async () => {
    h = await startWebApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('evaluates against sample values (200) and reports the inputs it read and those that were missing', async () => {
    const res = await test({
      expression: 'Lower(cs["givenName"]) + "." + Lower(cs["SN"]) + Coalesce(mv["Nickname"], "")',
      cs: { givenName: 'Ada', sn: 'Lovelace' },
    }).expect(200);
    expect(res.body).toEqual({
      result: 'ada.lovelace',
      resultType: 'text',
      resultText: '"ada.lovelace"',
      inputs: { mv: ['Nickname'], cs: ['givenName', 'SN'] },
      missingInputs: { mv: ['Nickname'], cs: [] },
      functions: expect.arrayContaining(['Lower', 'Coalesce']),
      deterministic: true,
      error: null,
    });
  });

  it.each([
    ['a number', { expression: 'cs["a"] * 2 + 1', cs: { a: 20 } }, 41, 'number'],
    ['a boolean', { expression: 'IsNullOrEmpty(mv["x"]) && !cs["flag"]', cs: { flag: false } }, true, 'boolean'],
    ['null', { expression: 'Upper(cs["missing"])' }, null, 'null'],
    ['a list', { expression: 'Split(cs["groups"], ";")', cs: { groups: 'a;b;c' } }, ['a', 'b', 'c'], 'list'],
    [
      'a multi-valued input',
      { expression: 'Join(cs["proxyAddresses"], ",")', cs: { proxyAddresses: ['smtp:a@x', 'SMTP:b@x', null] } },
      'smtp:a@x,SMTP:b@x',
      'text',
    ],
    [
      'a date from { $date }',
      { expression: 'FormatDate(cs["hired"], "yyyy-MM-dd")', cs: { hired: { $date: '2024-02-29T10:00:00Z' } } },
      '2024-02-29',
      'text',
    ],
    ['a date result', { expression: 'cs["hired"]', cs: { hired: { $date: '2024-02-29' } } }, '2024-02-29T00:00:00.000Z', 'date'],
    [
      'the clock given as now',
      { expression: 'FormatDate(Now(), "yyyy-MM-dd HH:mm")', now: '2030-05-06T07:08:09Z' },
      '2030-05-06 07:08',
      'text',
    ],
  ])('returns %s with its type', async (_label, body, result, resultType) => {
    const res = await test(body).expect(200);
    expect({ result: res.body.result, resultType: res.body.resultType, error: res.body.error }).toEqual({
      result,
      resultType,
      error: null,
    });
  });

  it('says when a result depends on the clock', async () => {
    expect((await test({ expression: 'Today()' }).expect(200)).body.deterministic).toBe(false);
  });

  it('answers an evaluation error with 200 and the error with its position', async () => {
    const res = await test({ expression: 'cs["a"] /\n  cs["b"]', cs: { a: 1, b: 0 } }).expect(200);
    expect(res.body).toMatchObject({ result: null, resultType: null, resultText: null, inputs: { cs: ['a', 'b'], mv: [] } });
    expect(res.body.error).toEqual({
      code: 'DivisionByZero',
      message: 'Division by zero',
      position: { line: 1, column: 9, offset: 8 },
      token: '/',
    });
    const typeError = await test({ expression: 'cs["s"] - 1', cs: { s: 'a' } }).expect(200);
    expect(typeError.body.error).toMatchObject({ code: 'Type', position: { line: 1, column: 9 }, token: '-' });
  });

  it('answers a compile error with 400 VALIDATION_ERROR and its position in details', async () => {
    const res = await test({ expression: 'Left(cs["givenName"])' });
    expectValidation(res, 'expression');
    expect(res.body.validationErrors.expression[0]).toBe('Left(value, count) expects 2 arguments but got 1 (line 1, column 1)');
    expect(res.body.details).toMatchObject({
      field: 'expression',
      code: 'ArgumentCount',
      phase: 'compile',
      line: 1,
      column: 1,
      offset: 0,
      token: 'Left',
    });
    const syntax = await test({ expression: 'cs["a"] = "b"' });
    expect(syntax.body.details).toMatchObject({ code: 'Syntax', line: 1, column: 9 });
    const tooLong = await test({ expression: `"${'x'.repeat(10_001)}"` });
    expect(tooLong.body.details).toMatchObject({ code: 'TooLong' });
  });

  it.each([
    ['no expression', {}, 'expression'],
    ['a blank expression', { expression: '  ' }, 'expression'],
    ['an expression that is not text', { expression: 5 }, 'expression'],
    ['cs that is not an object', { expression: '1', cs: ['a'] }, 'cs'],
    ['an object value', { expression: '1', mv: { x: { nested: true } } }, 'mv.x'],
    ['a nested list', { expression: '1', cs: { x: [['a']] } }, 'cs.x'],
    ['a malformed $date', { expression: '1', cs: { d: { $date: 'yesterday' } } }, 'cs.d'],
    ['names that differ only in case', { expression: '1', cs: { a: 1, A: 2 } }, 'cs'],
    ['a malformed now', { expression: 'Now()', now: 'noon' }, 'now'],
    ['now as a number', { expression: 'Now()', now: 1_700_000_000_000 }, 'now'],
    ['an unknown field', { expression: '1', syncRuleId: 3 }, 'syncRuleId'],
  ])('refuses %s (400)', async (_label, body, field) => {
    expectValidation(await test(body), field);
  });

  it('never evaluates host code', async () => {
    const res = await test({ expression: 'cs["constructor"] + cs["__proto__"]', cs: {} }).expect(200);
    expect(res.body.result).toBeNull();
    expectValidation(await test({ expression: 'process.exit(1)' }), 'expression');
  });

  it('lists the functions of the language with signatures and examples', async () => {
    const res = await h.http.get(FUNCTIONS).set('X-Api-Key', h.adminKey).expect(200);
    const names = res.body.map((f: any) => f.name);
    for (const name of ['Trim', 'Upper', 'Left', 'Coalesce', 'IIF', 'FormatDate', 'EscapeDN', 'RandomPassword', 'HasBit'])
      expect(names).toContain(name);
    const left = res.body.find((f: any) => f.name === 'Left');
    expect(left).toMatchObject({
      category: 'Text',
      signature: expect.stringMatching(/^Left\(/),
      deterministic: true,
      parameters: expect.any(Array),
      examples: expect.any(Array),
    });
    expect(res.body.find((f: any) => f.name === 'RandomPassword').deterministic).toBe(false);
  });

  it('requires the Administrator role', async () => {
    expect((await h.http.post(TEST).send({ expression: '1' })).status).toBe(401);
    expect((await h.http.get(FUNCTIONS)).status).toBe(401);
  });
});
