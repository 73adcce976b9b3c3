import { Injectable } from '@nestjs/common';
import {
  CompileResult,
  DomainError,
  ErrorCode,
  ExpressionCache,
  ExpressionError,
  ExpressionErrorCode,
  findUnknownAttributes,
  ValidationErrorCollector,
  ValidationErrors,
} from '@meridian/domain';

/** One expression error found while validating a mapping, with the field it belongs to. */
export interface FieldExpressionError {
  field: string;
  error: ExpressionError;
}

/** The attribute names an expression of a rule may read, and which of them take part in synchronisation. */
export interface ExpressionSchema {
  /** Names of the connected-system attributes of the rule's object type, with whether each is selected. */
  cs: ReadonlyMap<string, { name: string; selected: boolean }>;
  /** Names of the metaverse attributes of the rule's metaverse object type. */
  mv: readonly string[];
}

/** Compiles mapping expressions through a shared LRU cache and checks the attributes they read. */
@Injectable()
export class MappingExpressions {
  private readonly cache = new ExpressionCache(1000);

  compile(text: string): CompileResult {
    return this.cache.compile(text);
  }

  /**
   * The errors of an expression being saved: compile errors, then accessors naming attributes the
   * schema does not have, or connected-system attributes that are not selected for synchronisation.
   */
  check(text: string, field: string, schema: ExpressionSchema): FieldExpressionError[] {
    const result = this.compile(text);
    if (!result.ok) return [{ field, error: result.error }];
    const csNames = [...schema.cs.values()].map((a) => a.name);
    const unknown = findUnknownAttributes(result.expression, { cs: csNames, mv: schema.mv });
    const unselected = result.expression.references
      .filter((ref) => ref.source === 'cs' && schema.cs.get(ref.name.toLowerCase())?.selected === false)
      .map(
        (ref) =>
          new ExpressionError(
            ExpressionErrorCode.UnknownAttribute,
            `Connected system attribute '${ref.name}' is not selected for synchronisation; select it first`,
            ref.position,
            ref.token,
            'compile',
          ),
      );
    return [...unknown, ...unselected].map((error) => ({ field, error }));
  }
}

/**
 * A 400 VALIDATION_ERROR carrying field errors and expression errors together. With expression errors,
 * `details` has the shape of expressionValidationError for the first one (field, code, message, line,
 * column, offset, token) plus `expressionErrors` listing all of them.
 */
export function mappingValidationError(
  fieldErrors: ValidationErrors,
  expressionErrors: readonly FieldExpressionError[],
): DomainError | null {
  if (!Object.keys(fieldErrors).length && !expressionErrors.length) return null;
  const collected = new ValidationErrorCollector();
  for (const [field, messages] of Object.entries(fieldErrors)) for (const message of messages) collected.add(field, message);
  for (const { field, error } of expressionErrors) collected.add(field, error.displayMessage);
  const validationErrors = collected.byField;
  if (!expressionErrors.length) return DomainError.validationMany(validationErrors);
  const [first] = expressionErrors;
  const details = {
    field: first.field,
    ...first.error.toJSON(),
    expressionErrors: expressionErrors.map((e) => ({ field: e.field, ...e.error.toJSON() })),
  };
  return new DomainError(ErrorCode.ValidationError, 'One or more fields are invalid.', details, validationErrors);
}
