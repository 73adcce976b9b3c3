import { BinaryNode } from './expression-ast';
import { compileExpression, compileExpressionOrThrow } from './expression-compiler';
import { ExpressionError, ExpressionErrorCode } from './expression-error';
import { tokenize } from './expression-lexer';
import { parseExpression } from './expression-parser';
import { ExpressionValue } from './expression-value';

const run = (text: string): ExpressionValue => compileExpressionOrThrow(text).evaluate({ cs: { a: 'A', n: 5 } });

function compileError(text: string): ExpressionError {
  const result = compileExpression(text);
  if (result.ok) throw new Error(`compiled: ${text}`);
  return result.error;
}

describe('expression syntax', () => {
  it.each<[string, ExpressionValue]>([
    ['"double"', 'double'],
    ["'single'", 'single'],
    ['"it\'s"', "it's"],
    ['\'say "hi"\'', 'say "hi"'],
    ['"a\\"b\\\'c\\\\d\\/e"', 'a"b\'c\\d/e'],
    ['"\\n\\r\\t\\b\\f\\v\\0"', '\n\r\t\b\f\v\0'],
    ['"\\x41\\u0042\\u{43}\\u{1F600}"', 'ABC😀'],
    ['""', ''],
    ['"😀 ünïcödé"', '😀 ünïcödé'],
    ['42', 42],
    ['0', 0],
    ['007', 7],
    ['1.5', 1.5],
    ['2e3', 2000],
    ['2E-2', 0.02],
    ['0x10000', 65536],
    ['0XfF', 255],
    ['-1', -1],
    ['true', true],
    ['FALSE', false],
    ['True', true],
    ['null', null],
    ['NULL', null],
  ])('reads the literal %s', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });

  it.each<[string, ExpressionValue]>([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['10 - (4 - 3)', 9],
    ['2 * 3 % 4', 2],
    ['24 / 4 / 2', 3],
    ['24 / (4 / 2)', 12],
    ['10 / 4', 2.5],
    ['7 % -3', 1],
    ['-7 % 3', -1],
    ['-2 * 3', -6],
    ['- -3', 3],
    ['1 - -1', 2],
    ['-cs["n"] + 1', -4],
    ['"a" + 1 + 2', 'a12'],
    ['1 + 2 + "a"', '3a'],
    ['"x" + (1 + 2)', 'x3'],
    ['1 + 2 == 3', true],
    ['1 + 2 > 2 + 0', true],
    ['1 < 2 == true', true],
    ['2 >= 2 && 1 <= 1', true],
    ['"b" > "a"', true],
    ['"B" < "a"', true],
    ['true || false && false', true],
    ['(true || false) && false', false],
    ['false && false || true', true],
    ['!true || true', true],
    ['!(true || true)', false],
    ['!false && false', false],
    ['!!true', true],
    ['1 != 2 && "a" == "a"', true],
    ['cs["n"] * 2 + 1 == 11 || false', true],
    ['"uid=" + Lower(cs["a"]) + "," + "dc=org"', 'uid=a,dc=org'],
    ['1 +\n2\r\n*\t3', 7],
  ])('respects precedence and associativity: %s → %p', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });

  it('keeps runs of one precedence level flat so long chains evaluate iteratively', () => {
    const ast = parseExpression('a(1) + 2 - 3 + 4') as BinaryNode;
    expect(ast.kind).toBe('binary');
    expect(ast.group).toBe('additive');
    expect(ast.operands).toHaveLength(4);
    expect(ast.operators.map((o) => o.operator)).toEqual(['+', '-', '+']);
    const nested = parseExpression('(1 - 2) - 3') as BinaryNode;
    expect(nested.operands).toHaveLength(2);
    const long = `"x"${' + "y"'.repeat(1600)}`;
    expect((parseExpression(long) as BinaryNode).operands).toHaveLength(1601);
    expect((run(long) as string).length).toBe(1601);
  });

  it('allows a parenthesised comparison to be compared again', () => {
    expect(run('(1 < 2) == (2 < 3)')).toBe(true);
    expect(run('(1 < 2) < true')).toBe(false);
    expect(compileError('1 < 2 < true').code).toBe(ExpressionErrorCode.Syntax);
  });

  it('tracks lines and columns across line breaks', () => {
    const tokens = tokenize('a\n  b\r\n\tc\rd');
    expect(tokens.map((t) => [t.text, t.line, t.column, t.offset])).toEqual([
      ['a', 1, 1, 0],
      ['b', 2, 3, 4],
      ['c', 3, 2, 8],
      ['d', 4, 1, 10],
      ['', 4, 2, 11],
    ]);
  });

  describe('reports malformed expressions with their position and token', () => {
    it.each<[string, ExpressionErrorCode, number, number, string, RegExp]>([
      ['', ExpressionErrorCode.Syntax, 1, 1, '', /empty/],
      ['   \n  ', ExpressionErrorCode.Syntax, 2, 3, '', /empty/],
      [
        'Lower(cs["sn"]',
        ExpressionErrorCode.Syntax,
        1,
        15,
        '',
        /Expected ',' or '\)' in the call to Lower opened at line 1, column 6 but found the end/,
      ],
      ['(1 + 2', ExpressionErrorCode.Syntax, 1, 7, '', /Expected '\)' to close the '\(' at line 1, column 1/],
      ['cs["sn"', ExpressionErrorCode.Syntax, 1, 8, '', /Expected '\]' to close the '\[' at line 1, column 3/],
      ['"abc', ExpressionErrorCode.Syntax, 1, 1, '"abc', /Unterminated string/],
      ['"ab\ncd"', ExpressionErrorCode.Syntax, 1, 1, '"ab', /Unterminated string/],
      ['"a\\qb"', ExpressionErrorCode.Syntax, 1, 3, '\\q', /Unknown escape sequence '\\q'/],
      ['"\\u12"', ExpressionErrorCode.Syntax, 1, 2, '\\u12"', /exactly 4 hex digits/],
      ['"\\u{110000}"', ExpressionErrorCode.Syntax, 1, 2, '\\u{110000}', /up to 10FFFF/],
      ['1 + * 2', ExpressionErrorCode.Syntax, 1, 5, '*', /Expected a value .* but found '\*'/],
      ['1 +', ExpressionErrorCode.Syntax, 1, 4, '', /but found the end of the expression/],
      ['Left("a",)', ExpressionErrorCode.Syntax, 1, 10, ')', /Expected a value/],
      ['"a" "b"', ExpressionErrorCode.Syntax, 1, 5, '"b"', /operator \(such as \+\) or a comma is missing/],
      ['1 )', ExpressionErrorCode.Syntax, 1, 3, ')', /after a complete expression/],
      ['cs["a"] = "b"', ExpressionErrorCode.Syntax, 1, 9, '=', /use == \(or Eq\(a, b\)\) to compare/],
      ['cs["a"] & cs["b"]', ExpressionErrorCode.Syntax, 1, 9, '&', /use &&/],
      ['cs.givenName', ExpressionErrorCode.Syntax, 1, 3, '.', /mv\["name"\] or cs\["name"\]/],
      ['12abc', ExpressionErrorCode.Syntax, 1, 1, '12abc', /Invalid number/],
      ['1.2.3', ExpressionErrorCode.Syntax, 1, 1, '1.2.3', /Invalid number/],
      ['0x', ExpressionErrorCode.Syntax, 1, 1, '0x', /hexadecimal/],
      ['0x20000000000000', ExpressionErrorCode.Syntax, 1, 1, '0x20000000000000', /too large/],
      ['1e999', ExpressionErrorCode.Syntax, 1, 1, '1e999', /too large/],
      ['1 < 2 < 3', ExpressionErrorCode.Syntax, 1, 7, '<', /cannot be chained/],
      ['1 == 1 != true', ExpressionErrorCode.Syntax, 1, 8, '!=', /cannot be chained/],
      ['IIF(a > 1,\n  "x"\n  "y")', ExpressionErrorCode.Syntax, 3, 3, '"y"', /in the call to IIF opened at line 1, column 4/],
      ['"ok" +\n\n   §', ExpressionErrorCode.Syntax, 3, 4, '§', /Unexpected character '§'/],
      ['"a" + \u200b"b"', ExpressionErrorCode.Syntax, 1, 7, '\u200b', /Unexpected character '\\u200b'/],
      ['Lowr(cs["sn"])', ExpressionErrorCode.UnknownFunction, 1, 1, 'Lowr', /Unknown function 'Lowr'; did you mean Lower\?/],
      ['Frobnicate(1)', ExpressionErrorCode.UnknownFunction, 1, 1, 'Frobnicate', /^Unknown function 'Frobnicate'$/],
      ['1 +\n  Left(cs["x"])', ExpressionErrorCode.ArgumentCount, 2, 3, 'Left', /Left\(value, count\) expects 2 arguments but got 1/],
      ['Trim("a", "b")', ExpressionErrorCode.ArgumentCount, 1, 11, '"b"', /expects 1 argument but got 2/],
      ['Substring("a")', ExpressionErrorCode.ArgumentCount, 1, 1, 'Substring', /expects 2 to 3 arguments/],
      ['Coalesce()', ExpressionErrorCode.ArgumentCount, 1, 1, 'Coalesce', /expects at least 1 argument but got 0/],
      ['Now(1)', ExpressionErrorCode.ArgumentCount, 1, 5, '1', /expects 0 arguments/],
      ['cs[1]', ExpressionErrorCode.InvalidAccessor, 1, 4, '1', /must be a string literal/],
      ['mv["a" + "b"]', ExpressionErrorCode.InvalidAccessor, 1, 8, '+', /must be a string literal/],
      ['cs[cs["x"]]', ExpressionErrorCode.InvalidAccessor, 1, 4, 'cs["x"]', /must be a string literal/],
      ['cs[""]', ExpressionErrorCode.InvalidAccessor, 1, 4, '""', /must not be empty/],
      ['xs["a"]', ExpressionErrorCode.InvalidAccessor, 1, 1, 'xs', /Only mv\[…\] and cs\[…\]/],
      ['givenName', ExpressionErrorCode.UnknownName, 1, 1, 'givenName', /Unknown name 'givenName'/],
      ['mv("a")', ExpressionErrorCode.UnknownFunction, 1, 1, 'mv', /mv is not a function/],
    ])('%j → %s at %i:%i', (text, code, line, column, token, message) => {
      const error = compileError(text);
      expect(error).toBeInstanceOf(ExpressionError);
      expect({
        code: error.code,
        line: error.position.line,
        column: error.position.column,
        token: error.token,
        phase: error.phase,
      }).toEqual({ code, line, column, token, phase: 'compile' });
      expect(error.message).toMatch(message);
      const lines = text.split(/\r\n|\r|\n/);
      const offsetOfLine = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0);
      expect(error.position.offset).toBe(offsetOfLine + column - 1);
    });
  });

  it('formats errors with their position for display', () => {
    const error = compileError('Lower(');
    expect(error.displayMessage).toMatch(/\(line 1, column 7\)$/);
    expect(String(error)).toBe(`ExpressionError: ${error.displayMessage}`);
    expect(error.toJSON()).toEqual({ code: 'Syntax', phase: 'compile', message: error.message, line: 1, column: 7, offset: 6, token: '' });
  });
});
