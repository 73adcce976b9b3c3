/** What went wrong with an expression; stable values the API and the sync engine can switch on. */
export enum ExpressionErrorCode {
  /** The text is not well-formed (bad character, unterminated string, missing parenthesis…). */
  Syntax = 'Syntax',
  /** The text is longer than the limit. */
  TooLong = 'TooLong',
  /** Parentheses, calls or unary operators nest deeper than the limit. */
  TooDeep = 'TooDeep',
  /** A call names a function that does not exist. */
  UnknownFunction = 'UnknownFunction',
  /** A call passes too few or too many arguments. */
  ArgumentCount = 'ArgumentCount',
  /** An accessor other than mv[…]/cs[…], or one whose key is not a non-empty string literal. */
  InvalidAccessor = 'InvalidAccessor',
  /** A bare name that is not true/false/null (e.g. `process`, `this`). */
  UnknownName = 'UnknownName',
  /** An accessor names an attribute the schema does not have (findUnknownAttributes). */
  UnknownAttribute = 'UnknownAttribute',
  /** An argument that is invalid even before evaluation (e.g. a constant format string). */
  InvalidArgument = 'InvalidArgument',
  /** A value of the wrong type reached an operator or function during evaluation. */
  Type = 'Type',
  /** An argument had the right type but an unusable value during evaluation. */
  InvalidValue = 'InvalidValue',
  /** Division or remainder by zero. */
  DivisionByZero = 'DivisionByZero',
  /** A numeric result is not a finite number. */
  Overflow = 'Overflow',
  /** A string, list or the evaluation's work budget grew past its limit. */
  LimitExceeded = 'LimitExceeded',
  /** The evaluation context holds something that is not an attribute value. */
  InvalidContext = 'InvalidContext',
  /** The platform lacks something an evaluation needs (e.g. a CSPRNG). */
  Unavailable = 'Unavailable',
}

/** A place in the expression text: 1-based line and column, 0-based offset (UTF-16 code units). */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

/** Whether the error was found while compiling (saving a mapping) or while evaluating. */
export type ExpressionErrorPhase = 'compile' | 'evaluate';

/** The one error type of the expression library: a message, where it happened and the token there. */
export class ExpressionError extends Error {
  constructor(
    readonly code: ExpressionErrorCode,
    message: string,
    readonly position: SourcePosition,
    /** The source text of the offending token; empty at the end of the input. */
    readonly token: string,
    readonly phase: ExpressionErrorPhase,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }

  /** The message with its position, as shown to an administrator. */
  get displayMessage(): string {
    return `${this.message} (line ${this.position.line}, column ${this.position.column})`;
  }

  override toString(): string {
    return `${this.name}: ${this.displayMessage}`;
  }

  /** A plain object for logs and API error details. */
  toJSON(): ExpressionErrorDetails {
    return {
      code: this.code,
      phase: this.phase,
      message: this.message,
      line: this.position.line,
      column: this.position.column,
      offset: this.position.offset,
      token: this.token,
    };
  }
}

/** The serialisable form of an ExpressionError. */
export interface ExpressionErrorDetails {
  code: ExpressionErrorCode;
  phase: ExpressionErrorPhase;
  message: string;
  line: number;
  column: number;
  offset: number;
  token: string;
}

/** A token's text and where it starts; every AST node and runtime error points at one. */
export interface TokenRef extends SourcePosition {
  readonly text: string;
}

/** The position used when an error has no better place to point at: the start of the text. */
export const START_OF_TEXT: TokenRef = Object.freeze({ line: 1, column: 1, offset: 0, text: '' });

/** Builds an ExpressionError pointing at a token. */
export function expressionError(code: ExpressionErrorCode, message: string, at: TokenRef, phase: ExpressionErrorPhase): ExpressionError {
  return new ExpressionError(code, message, { line: at.line, column: at.column, offset: at.offset }, at.text, phase);
}
