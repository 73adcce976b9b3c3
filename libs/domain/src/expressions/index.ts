// Public API of the expression language of attribute mappings (DOMAIN.md §4, docs/expressions.md).
export { ExpressionError, ExpressionErrorCode } from './expression-error';
export type { ExpressionErrorDetails, ExpressionErrorPhase, SourcePosition } from './expression-error';
export { EXPRESSION_LIMITS } from './expression-limits';
export type { ExpressionLimits } from './expression-limits';
export { formatExpressionValue } from './expression-value';
export type { ExpressionItem, ExpressionTypeName, ExpressionValue } from './expression-value';
export { AttributeValues } from './expression-context';
export type { AttributeLookup, AttributeSource, ExpressionContext } from './expression-context';
export { compileExpression, compileExpressionOrThrow } from './expression-compiler';
export type {
  AttributeReference,
  AttributeSourceName,
  CompiledExpression,
  CompileResult,
  EvaluateOptions,
  ExpressionInputs,
} from './expression-compiler';
export { ExpressionCache } from './expression-cache';
export { expressionValidationError, findUnknownAttributes, requireValidExpression } from './expression-validation';
export type { KnownAttributes } from './expression-validation';
export { listExpressionFunctions } from './expression-functions';
export type {
  ExpressionFunctionCategory,
  ExpressionFunctionExample,
  ExpressionFunctionInfo,
  ExpressionFunctionParameter,
} from './expression-functions';
// The data the reference (docs/expressions.md, rendered by tools/expression-docs) is generated from.
export { EXAMPLE_CONTEXT, EXAMPLE_NOW } from './expression-functions';
export { DATE_FORMAT_TOKENS } from './expression-dates';
export { PRECEDENCE } from './expression-parser';
export type { BinaryGroup, BinaryOperator } from './expression-ast';
