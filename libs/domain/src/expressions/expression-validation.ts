import { DomainError, ErrorCode } from '../errors/domain-error';
import { AttributeSourceName, CompiledExpression, compileExpression } from './expression-compiler';
import { ExpressionError, ExpressionErrorCode } from './expression-error';

/**
 * A 400 VALIDATION_ERROR for an expression error, shaped like DomainError.validationMany({ [field]: [...] })
 * with the position, token and code in `details` so the console can underline the offending token.
 */
export function expressionValidationError(error: ExpressionError, field = 'expression'): DomainError {
  return new DomainError(
    ErrorCode.ValidationError,
    'One or more fields are invalid.',
    { field, ...error.toJSON() },
    { [field]: [error.displayMessage] },
  );
}

/** Compiles an expression being saved; throws a VALIDATION_ERROR naming `field` when it is invalid. */
export function requireValidExpression(text: string, field = 'expression'): CompiledExpression {
  const result = compileExpression(text);
  if (!result.ok) throw expressionValidationError(result.error, field);
  return result.expression;
}

/** Attribute names a mapping may read, e.g. the metaverse type's attributes and the CS object type's. */
export interface KnownAttributes {
  readonly mv?: Iterable<string>;
  readonly cs?: Iterable<string>;
}

/**
 * The accessors that name attributes missing from the schema (compared ignoring case), one error per
 * occurrence with its position. A source left out of `known` is not checked.
 */
export function findUnknownAttributes(expression: CompiledExpression, known: KnownAttributes): ExpressionError[] {
  const lower = (names: Iterable<string> | undefined) => (names ? new Set([...names].map((n) => n.toLowerCase())) : undefined);
  const sets: Record<AttributeSourceName, Set<string> | undefined> = { mv: lower(known.mv), cs: lower(known.cs) };
  return expression.references
    .filter((ref) => sets[ref.source] !== undefined && !sets[ref.source]?.has(ref.name.toLowerCase()))
    .map(
      (ref) =>
        new ExpressionError(
          ExpressionErrorCode.UnknownAttribute,
          `Unknown ${ref.source === 'mv' ? 'metaverse' : 'connected system'} attribute '${ref.name}'`,
          ref.position,
          ref.token,
          'compile',
        ),
    );
}
