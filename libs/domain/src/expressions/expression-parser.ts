import { AstNode, BinaryGroup, BinaryNode, BinaryOperator, UnaryOperator } from './expression-ast';
import { ExpressionErrorCode, expressionError, START_OF_TEXT, TokenRef } from './expression-error';
import { Token, tokenize } from './expression-lexer';
import { EXPRESSION_LIMITS } from './expression-limits';

/** Binding power of each binary operator and the group it belongs to; higher binds tighter. */
export const PRECEDENCE: Readonly<Record<BinaryOperator, { readonly power: number; readonly group: BinaryGroup }>> = {
  '||': { power: 1, group: 'or' },
  '&&': { power: 2, group: 'and' },
  '==': { power: 3, group: 'equality' },
  '!=': { power: 3, group: 'equality' },
  '<': { power: 4, group: 'relational' },
  '<=': { power: 4, group: 'relational' },
  '>': { power: 4, group: 'relational' },
  '>=': { power: 4, group: 'relational' },
  '+': { power: 5, group: 'additive' },
  '-': { power: 5, group: 'additive' },
  '*': { power: 6, group: 'multiplicative' },
  '/': { power: 6, group: 'multiplicative' },
  '%': { power: 6, group: 'multiplicative' },
};

const KEYWORDS: Record<string, true | false | null | undefined> = Object.assign(Object.create(null) as object, {
  true: true,
  false: false,
  null: null,
});

const describe = (token: Token) => (token.kind === 'end' ? 'the end of the expression' : `'${token.text}'`);
const where = (t: TokenRef) => `line ${t.line}, column ${t.column}`;

/**
 * Parses expression text into an AST: a Pratt (precedence-climbing) parser over the token list.
 * Syntax only; names, arities and accessors are checked by the compiler. Throws ExpressionError.
 */
export function parseExpression(text: string): AstNode {
  if (typeof text !== 'string') throw expressionError(ExpressionErrorCode.Syntax, 'The expression must be text', START_OF_TEXT, 'compile');
  if (text.length > EXPRESSION_LIMITS.maxLength) {
    throw expressionError(
      ExpressionErrorCode.TooLong,
      `The expression is ${text.length.toLocaleString('en-US')} characters long; the limit is ${EXPRESSION_LIMITS.maxLength.toLocaleString('en-US')}`,
      START_OF_TEXT,
      'compile',
    );
  }
  return new Parser(text, tokenize(text)).parseAll();
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
  ) {}

  parseAll(): AstNode {
    if (this.peek().kind === 'end') this.fail(this.peek(), 'The expression is empty');
    const node = this.expression(1);
    const next = this.peek();
    if (next.kind !== 'end') {
      const missingOperator = next.kind === 'string' || next.kind === 'number' || next.kind === 'identifier' || next.kind === '(';
      this.fail(
        next,
        missingOperator
          ? `Unexpected ${describe(next)}: an operator (such as +) or a comma is missing before it`
          : `Unexpected ${describe(next)} after a complete expression`,
      );
    }
    return node;
  }

  /** Parses operators binding at least `minPower`; runs of one group become one flat BinaryNode. */
  private expression(minPower: number): AstNode {
    let left = this.unary();
    // The run being extended; a parenthesised run arrives as `left` and is never extended.
    let run: { group: BinaryGroup; operands: AstNode[]; operators: BinaryNode['operators'][number][] } | undefined;
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'operator' || !Object.hasOwn(PRECEDENCE, token.text)) return left;
      const { power, group } = PRECEDENCE[token.text as BinaryOperator];
      if (power < minPower) return left;
      this.index++;
      const right = this.expression(power + 1);
      const operator = { operator: token.text as BinaryOperator, at: this.ref(token) };
      if (run?.group === group) {
        if (group === 'equality' || group === 'relational') {
          this.fail(token, 'Comparisons cannot be chained: combine them with && (for example a < b && b < c)');
        }
        run.operands.push(right);
        run.operators.push(operator);
      } else {
        run = { group, operands: [left, right], operators: [operator] };
        left = { kind: 'binary', ...run } satisfies BinaryNode;
      }
    }
  }

  private unary(): AstNode {
    const token = this.peek();
    if (token.kind === 'operator' && (token.text === '!' || token.text === '-')) {
      this.index++;
      this.enter(token);
      const operand = this.unary();
      this.depth--;
      return { kind: 'unary', operator: token.text as UnaryOperator, at: this.ref(token), operand };
    }
    return this.primary();
  }

  private primary(): AstNode {
    const token = this.next();
    switch (token.kind) {
      case 'string':
      case 'number':
        return { kind: 'literal', value: token.value as string | number, at: this.ref(token) };
      case '(': {
        this.enter(token);
        const inner = this.expression(1);
        this.expect(')', `Expected ')' to close the '(' at ${where(token)}`);
        this.depth--;
        return inner;
      }
      case 'identifier':
        return this.identifier(token);
      default:
        return this.fail(token, `Expected a value (a literal, mv["…"], cs["…"], a function call or '(') but found ${describe(token)}`);
    }
  }

  private identifier(token: Token): AstNode {
    const at = this.ref(token);
    const after = this.peek();
    if (after.kind === '(') {
      this.index++;
      this.enter(after);
      const args: AstNode[] = [];
      if (this.peek().kind !== ')') {
        for (;;) {
          args.push(this.expression(1));
          if (this.peek().kind !== ',') break;
          this.index++;
        }
      }
      this.expect(')', `Expected ',' or ')' in the call to ${token.text} opened at ${where(after)}`);
      this.depth--;
      return { kind: 'call', name: token.text, at, args };
    }
    if (after.kind === '[') {
      this.index++;
      this.enter(after);
      const key = this.expression(1);
      this.expect(']', `Expected ']' to close the '[' at ${where(after)}`);
      this.depth--;
      const end = this.tokens[this.index - 1];
      const span = { ...at, text: this.text.slice(token.offset, end.offset + end.text.length) };
      return { kind: 'index', target: token.text, at, span, key };
    }
    const lower = token.text.toLowerCase();
    if (lower in KEYWORDS) return { kind: 'literal', value: KEYWORDS[lower] as boolean | null, at };
    return { kind: 'name', name: token.text, at };
  }

  private enter(token: Token): void {
    if (++this.depth > EXPRESSION_LIMITS.maxDepth) {
      throw expressionError(
        ExpressionErrorCode.TooDeep,
        `The expression nests more than ${EXPRESSION_LIMITS.maxDepth} levels deep`,
        this.ref(token),
        'compile',
      );
    }
  }

  private expect(kind: Token['kind'], message: string): void {
    const token = this.next();
    if (token.kind !== kind) this.fail(token, `${message} but found ${describe(token)}`);
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private ref(token: Token): TokenRef {
    return { line: token.line, column: token.column, offset: token.offset, text: token.text };
  }

  private fail(token: Token, message: string): never {
    throw expressionError(ExpressionErrorCode.Syntax, message, this.ref(token), 'compile');
  }
}
