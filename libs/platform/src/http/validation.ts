import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, ValidationErrors } from '@meridian/domain';

function collect(errors: ValidationError[], prefix: string, out: ValidationErrors): ValidationErrors {
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) {
      // Rules of one field often share its message (e.g. type and length): each message is listed once.
      const messages = Object.entries(e.constraints).map(([rule, message]) =>
        rule === 'whitelistValidation' ? `${field} is not a known field` : message,
      );
      out[field] = [...new Set(messages)];
    }
    if (e.children?.length) collect(e.children, field, out);
  }
  return out;
}

/** Deeper than any request body of the API; class-transformer recurses, so a deeper one would overflow the stack. */
export const MAX_INPUT_DEPTH = 32;
const MAX_REPORTED = 20;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL could not store a text faithfully (text and jsonb refuse NUL; jsonb refuses unpaired surrogates), or null. */
function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL (\\u0000) characters';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it contains an unpaired surrogate)';
  return null;
}

/**
 * Finds input that no handler can use: text PostgreSQL cannot store (NUL characters, unpaired
 * surrogates) and nesting deeper than MAX_INPUT_DEPTH. Iterative, so the check itself cannot overflow
 * the stack.
 */
export function findUnusableInput(value: unknown, root: string): ValidationErrors {
  const out: ValidationErrors = {};
  let reported = 0;
  const report = (field: string, message: string) => {
    if (reported++ < MAX_REPORTED) (out[field || 'body'] ??= []).push(message);
  };
  const stack: Array<{ value: unknown; path: string; top: string; depth: number }> = [{ value, path: root, top: root, depth: 0 }];
  while (stack.length && reported < MAX_REPORTED) {
    const { value: v, path, top, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) report(path, `${path || 'the value'} ${problem}.`);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      report(top, `${top || 'the body'} is nested more than ${MAX_INPUT_DEPTH} levels deep.`);
      continue;
    }
    for (const [key, child] of Object.entries(v)) {
      const childPath = path ? `${path}.${key}` : key;
      const problem = textProblem(key);
      if (problem) report(path, `a field name in ${path || 'the body'} ${problem}.`);
      stack.push({ value: child, path: childPath, top: top || key, depth: depth + 1 });
    }
  }
  return out;
}

/** The global pipe: refuses unusable input (see findUnusableInput), then validates DTOs. */
class MeridianValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Custom parameters (the principal, the initiator) are ours, not the caller's input.
    if (metadata.type !== 'custom') {
      const problems = findUnusableInput(value, metadata.type === 'body' ? '' : (metadata.data ?? ''));
      if (Object.keys(problems).length) throw DomainError.validationMany(problems);
    }
    return super.transform(value, metadata);
  }

  // Nest converts a path or query value typed `number` with unary plus, which reads "1e3", "0x1", " 1"
  // and "" as numbers. Only decimal text is a number here; anything else becomes NaN for the handler's check.
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    if (
      metadata.data &&
      (metadata.type === 'param' || metadata.type === 'query') &&
      metadata.metatype === Number &&
      typeof value === 'string'
    ) {
      return /^[+-]?\d+(?:\.\d+)?$/.test(value) ? Number(value) : NaN;
    }
    return super.transformPrimitive(value, metadata);
  }
}

/** The global ValidationPipe: whitelist, reject unknown fields, transform; errors as VALIDATION_ERROR by field. */
export function createValidationPipe(): ValidationPipe {
  return new MeridianValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: (errors) => DomainError.validationMany(collect(errors, '', {})),
  });
}
