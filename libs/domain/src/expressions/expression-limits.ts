/** The bounds every expression is compiled and evaluated within (documented in docs/expressions.md). */
export interface ExpressionLimits {
  /** Characters of expression text (DOMAIN.md §4). */
  readonly maxLength: number;
  /** Nesting of parentheses, calls, accessors and unary operators. */
  readonly maxDepth: number;
  /** Characters of any string an evaluation reads or produces. */
  readonly maxStringLength: number;
  /** Values of any list an evaluation produces. */
  readonly maxListLength: number;
  /** Characters and list values an evaluation may produce in total: bounds the time of one call. */
  readonly maxWork: number;
}

export const EXPRESSION_LIMITS: ExpressionLimits = Object.freeze({
  maxLength: 10_000,
  maxDepth: 200,
  maxStringLength: 1_000_000,
  maxListLength: 100_000,
  maxWork: 20_000_000,
});
