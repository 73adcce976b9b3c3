import { Injectable } from '@nestjs/common';
import {
  AttributeValues,
  ExpressionError,
  expressionValidationError,
  ExpressionFunctionInfo,
  ExpressionInputs,
  ExpressionValue,
  formatExpressionValue,
  listExpressionFunctions,
  parseDateTime,
  ValidationErrorCollector,
} from '@meridian/domain';
import { MappingExpressions } from './mapping-expressions';

/** An expression to try, sample attribute values by name (checked and converted here), and the clock Now() reads. */
export interface TestExpressionInput {
  expression: string;
  mv?: Record<string, unknown> | null;
  cs?: Record<string, unknown> | null;
  now?: Date | null;
}

export type ExpressionResultType = 'text' | 'number' | 'boolean' | 'date' | 'list' | 'null';

/** The outcome of a test evaluation: the result, or the evaluation error with its position. */
export interface TestExpressionResult {
  /** JSON form of the result: dates as ISO 8601 text, lists as arrays; null on error. */
  result: unknown;
  resultType: ExpressionResultType | null;
  /** The result as the expression reference renders it (text quoted, dates marked); null on error. */
  resultText: string | null;
  inputs: ExpressionInputs;
  missingInputs: ExpressionInputs;
  functions: readonly string[];
  deterministic: boolean;
  error: { code: string; message: string; position: { line: number; column: number; offset: number }; token: string } | null;
}

/** Most attributes a test context may carry per source. */
export const MAX_TEST_ATTRIBUTES = 500;

function resultType(value: ExpressionValue): ExpressionResultType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Date) return 'date';
  return typeof value === 'string' ? 'text' : (typeof value as 'number' | 'boolean');
}

function toJson(value: ExpressionValue): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => toJson(v));
  return value;
}

/**
 * The expression playground (POST /synchronisation/test-expression): compiles an expression (a compile
 * error is a 400, as when a mapping is saved) and evaluates it against sample values (an evaluation
 * error is a 200 with `error`, because the request itself was fine).
 */
@Injectable()
export class ExpressionTesterService {
  constructor(private readonly expressions: MappingExpressions) {}

  functions(): ExpressionFunctionInfo[] {
    return listExpressionFunctions();
  }

  test(input: TestExpressionInput): TestExpressionResult {
    const errors = new ValidationErrorCollector();
    const mv = this.context(input.mv, 'mv', errors);
    const cs = this.context(input.cs, 'cs', errors);
    const now = input.now ?? undefined;
    errors.throwIfAny();

    const compiled = this.expressions.compile(input.expression);
    if (!compiled.ok) throw expressionValidationError(compiled.error, 'expression');
    const expression = compiled.expression;
    const context = { mv, cs };
    const base = {
      inputs: expression.inputs,
      missingInputs: expression.missingInputs(context),
      functions: expression.functions,
      deterministic: expression.deterministic,
    };
    try {
      const value = expression.evaluate(context, now ? { now: () => now } : undefined);
      return { result: toJson(value), resultType: resultType(value), resultText: formatExpressionValue(value), ...base, error: null };
    } catch (e) {
      if (!(e instanceof ExpressionError)) throw e;
      return {
        result: null,
        resultType: null,
        resultText: null,
        ...base,
        error: {
          code: e.code,
          message: e.message,
          position: { line: e.position.line, column: e.position.column, offset: e.position.offset },
          token: e.token,
        },
      };
    }
  }

  /**
   * Sample attribute values by name: text, numbers, booleans, null, lists of those, and dates written
   * `{ "$date": "2025-01-31T08:00:00Z" }` (JSON has no date type).
   */
  private context(
    raw: Record<string, unknown> | null | undefined,
    field: 'mv' | 'cs',
    errors: ValidationErrorCollector,
  ): AttributeValues | undefined {
    if (raw === undefined || raw === null) return undefined;
    const entries = Object.entries(raw);
    if (entries.length > MAX_TEST_ATTRIBUTES) {
      errors.add(field, `${field} can hold at most ${MAX_TEST_ATTRIBUTES} attributes.`);
      return undefined;
    }
    const values = new Map<string, unknown>();
    const item = (v: unknown, path: string): unknown => {
      if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
      if (typeof v === 'number') return v;
      if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && '$date' in v) {
        const text = (v as { $date: unknown }).$date;
        const date = typeof text === 'string' ? parseDateTime(text) : null;
        if (date) return date;
        errors.add(path, `${path}.$date must be an ISO 8601 date or date-time.`);
        return null;
      }
      errors.add(path, `${path} must be text, a number, true/false, null, { "$date": "…" } or a list of those.`);
      return null;
    };
    for (const [name, v] of entries) {
      const path = `${field}.${name}`;
      if (!Array.isArray(v)) {
        values.set(name, item(v, path));
        continue;
      }
      values.set(
        name,
        v.map((x, i) => {
          if (!Array.isArray(x)) return item(x, `${path}[${i}]`);
          errors.add(path, `${path}[${i}] is a nested list: a multi-valued attribute is one flat list.`);
          return null;
        }),
      );
    }
    if (errors.hasErrors) return undefined;
    try {
      return AttributeValues.from(values);
    } catch (e) {
      if (e instanceof ExpressionError) {
        errors.add(field, e.message);
        return undefined;
      }
      throw e;
    }
  }
}
