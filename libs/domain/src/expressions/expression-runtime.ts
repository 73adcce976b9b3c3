import { AttributeSource } from './expression-context';
import { parseDateTime } from '../common/date-time';
import { ExpressionError, ExpressionErrorCode, expressionError, TokenRef } from './expression-error';
import { EXPRESSION_LIMITS } from './expression-limits';
import { describeValue, ExpressionItem, ExpressionValue, isList, itemToText } from './expression-value';

/** Per-evaluation state: the attribute sources, the clock and the work spent so far. */
export interface EvalState {
  readonly mv: AttributeSource | null | undefined;
  readonly cs: AttributeSource | null | undefined;
  readonly clock: (() => Date) | undefined;
  /** Now() of this evaluation, fixed at first use so one evaluation sees one instant. */
  now: Date | undefined;
  /** Characters and list values produced so far (see EXPRESSION_LIMITS.maxWork). */
  work: number;
}

/** A compiled node: evaluates against one state. */
export type Evaluator = (state: EvalState) => ExpressionValue;

/** Where a function is called from, so its errors point at the call and name the argument. */
export class CallSite {
  constructor(
    /** The canonical function name. */
    readonly name: string,
    readonly parameterNames: readonly string[],
    readonly at: TokenRef,
    readonly argAt: readonly TokenRef[],
  ) {}

  /** Throws an evaluation error at the call, or at argument `arg` (0-based) when given. */
  fail(code: ExpressionErrorCode, message: string, arg?: number): never {
    const at = arg === undefined ? this.at : (this.argAt[arg] ?? this.at);
    throw expressionError(code, `${this.name}: ${message}`, at, 'evaluate');
  }

  /** The name of argument `index` for messages, e.g. `count` or `value 3` for variadic ones. */
  argName(index: number): string {
    const last = this.parameterNames.length - 1;
    return this.parameterNames[Math.min(index, last)] ?? `argument ${index + 1}`;
  }

  typeError(arg: number, expected: string, value: ExpressionValue): never {
    return this.fail(ExpressionErrorCode.Type, `${this.argName(arg)} must be ${expected}, got ${describeValue(value)}`, arg);
  }

  invalid(arg: number, message: string): never {
    return this.fail(ExpressionErrorCode.InvalidValue, `${this.argName(arg)} ${message}`, arg);
  }
}

/** Adds produced characters or list values to the evaluation's work and stops it past the budget. */
export function charge(state: EvalState, amount: number, at: TokenRef): void {
  state.work += amount;
  if (state.work > EXPRESSION_LIMITS.maxWork) {
    throw expressionError(
      ExpressionErrorCode.LimitExceeded,
      `The evaluation produced more than ${EXPRESSION_LIMITS.maxWork.toLocaleString('en-US')} characters and list values in total; simplify the expression`,
      at,
      'evaluate',
    );
  }
}

export function stringTooLong(at: TokenRef, length: number): ExpressionError {
  return expressionError(
    ExpressionErrorCode.LimitExceeded,
    `The result would be ${length.toLocaleString('en-US')} characters long; the limit is ${EXPRESSION_LIMITS.maxStringLength.toLocaleString('en-US')}`,
    at,
    'evaluate',
  );
}

export function listTooLong(at: TokenRef, length: number): ExpressionError {
  return expressionError(
    ExpressionErrorCode.LimitExceeded,
    `The result would hold ${length.toLocaleString('en-US')} values; the limit is ${EXPRESSION_LIMITS.maxListLength.toLocaleString('en-US')}`,
    at,
    'evaluate',
  );
}

/** Text of a single value (numbers, booleans and dates converted); null stays null; lists are refused. */
export function textArg(value: ExpressionValue, site: CallSite, arg: number): string | null {
  if (typeof value === 'string' || value === null) return value;
  if (isList(value)) {
    return site.fail(
      ExpressionErrorCode.Type,
      `${site.argName(arg)} must be a single value, got a list of ${value.length}; use Join(list, delimiter) or CollectionContains(list, value)`,
      arg,
    );
  }
  return itemToText(value);
}

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/** A whole number from a number or decimal text; null stays null. */
export function integerArg(value: ExpressionValue, site: CallSite, arg: number): number | null {
  if (value === null) return null;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    return site.invalid(arg, `must be a whole number, got ${value}`);
  }
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
  }
  return site.typeError(arg, 'a whole number', value);
}

/** A date from a date or ISO 8601 / GeneralizedTime text; null stays null. */
export function dateArg(value: ExpressionValue, site: CallSite, arg: number): Date | null {
  if (value === null) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'string') {
    const parsed = parseDateTime(value);
    if (parsed) return parsed;
    return site.invalid(arg, `must be a date or ISO 8601 text such as "2025-01-15T10:30:00Z", got ${describeValue(value)}`);
  }
  return site.typeError(arg, 'a date', value);
}

/** A list from a list, or a single value as a one-value list; null stays null. */
export function listArg(value: ExpressionValue): readonly ExpressionItem[] | null {
  if (value === null) return null;
  return isList(value) ? value : [value];
}

/** IIF/&&/||/! conditions: true, false, or null (treated as false). */
export function conditionValue(value: ExpressionValue, what: string, at: TokenRef): boolean {
  if (value === true) return true;
  if (value === false || value === null) return false;
  throw expressionError(ExpressionErrorCode.Type, `${what} must be true, false or null, got ${describeValue(value)}`, at, 'evaluate');
}
