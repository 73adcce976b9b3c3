import { TokenRef } from './expression-error';

/** Binary operator groups from loosest to tightest binding (see PRECEDENCE in the parser). */
export type BinaryGroup = 'or' | 'and' | 'equality' | 'relational' | 'additive' | 'multiplicative';
export type BinaryOperator = '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%';
export type UnaryOperator = '!' | '-';

export interface LiteralNode {
  readonly kind: 'literal';
  readonly value: string | number | boolean | null;
  readonly at: TokenRef;
}

/** A bare identifier that is not a keyword; always a compile error, kept so the checker can name it. */
export interface NameNode {
  readonly kind: 'name';
  readonly name: string;
  readonly at: TokenRef;
}

/** `target[key]`; the checker accepts only mv/cs with a string-literal key. */
export interface IndexNode {
  readonly kind: 'index';
  readonly target: string;
  /** The target identifier. */
  readonly at: TokenRef;
  /** The whole accessor, e.g. `cs["givenName"]`. */
  readonly span: TokenRef;
  readonly key: AstNode;
}

export interface CallNode {
  readonly kind: 'call';
  readonly name: string;
  readonly at: TokenRef;
  readonly args: readonly AstNode[];
}

export interface UnaryNode {
  readonly kind: 'unary';
  readonly operator: UnaryOperator;
  readonly at: TokenRef;
  readonly operand: AstNode;
}

/**
 * A left-associative run of operators of one group, e.g. `a + b - c` is operands [a, b, c] with
 * operators [+, -]. Keeping runs flat keeps evaluation iterative for long chains of concatenation.
 * Equality and relational runs always have exactly two operands (comparisons do not chain).
 */
export interface BinaryNode {
  readonly kind: 'binary';
  readonly group: BinaryGroup;
  readonly operands: readonly AstNode[];
  readonly operators: readonly { readonly operator: BinaryOperator; readonly at: TokenRef }[];
}

export type AstNode = LiteralNode | NameNode | IndexNode | CallNode | UnaryNode | BinaryNode;

/** The token a node is best identified by (its operator, name or literal). */
export function nodeToken(node: AstNode): TokenRef {
  if (node.kind === 'binary') return node.operators[0].at;
  return node.kind === 'index' ? node.span : node.at;
}
