import { DomainError, ErrorCode } from '../errors/domain-error';
import { compileExpression, compileExpressionOrThrow } from './expression-compiler';
import { ExpressionErrorCode } from './expression-error';
import { expressionValidationError, findUnknownAttributes, requireValidExpression } from './expression-validation';

describe('expression validation for the API', () => {
  it('turns a compile error into a VALIDATION_ERROR naming the field, with the position in details', () => {
    const result = compileExpression('Lower(cs["sn"]');
    if (result.ok) throw new Error('compiled');
    const error = expressionValidationError(result.error, 'attributeFlows[2].expression');
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe(ErrorCode.ValidationError);
    expect(error.validationErrors).toEqual({ 'attributeFlows[2].expression': [result.error.displayMessage] });
    expect(error.details).toEqual({
      field: 'attributeFlows[2].expression',
      code: ExpressionErrorCode.Syntax,
      phase: 'compile',
      message: result.error.message,
      line: 1,
      column: 15,
      offset: 14,
      token: '',
    });
  });

  it('compiles a valid expression being saved and throws a VALIDATION_ERROR on field "expression" otherwise', () => {
    expect(requireValidExpression('Upper(cs["sn"])').inputs.cs).toEqual(['sn']);
    try {
      requireValidExpression('Uper(cs["sn"])');
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).validationErrors).toEqual({
        expression: ["Unknown function 'Uper'; did you mean Upper? (line 1, column 1)"],
      });
    }
  });

  it('reports accessors naming attributes the schema lacks, ignoring case, with positions', () => {
    const compiled = compileExpressionOrThrow('cs["givenName"] + cs["givenNme"] +\n  mv["display name"] + mv["Nickname"]');
    const errors = findUnknownAttributes(compiled, { cs: ['GivenName', 'sn'], mv: ['Display Name'] });
    expect(errors.map((e) => [e.code, e.message, e.position.line, e.position.column, e.token])).toEqual([
      [ExpressionErrorCode.UnknownAttribute, "Unknown connected system attribute 'givenNme'", 1, 19, 'cs["givenNme"]'],
      [ExpressionErrorCode.UnknownAttribute, "Unknown metaverse attribute 'Nickname'", 2, 24, 'mv["Nickname"]'],
    ]);
    expect(findUnknownAttributes(compiled, { mv: ['Display Name', 'Nickname'] })).toEqual([]);
  });
});
