import { ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, ValidationErrors } from '@meridian/domain';

function collect(errors: ValidationError[], prefix: string, out: ValidationErrors): ValidationErrors {
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) {
      out[field] = Object.entries(e.constraints).map(([rule, message]) =>
        rule === 'whitelistValidation' ? `${field} is not a known field` : message);
    }
    if (e.children?.length) collect(e.children, field, out);
  }
  return out;
}

/** The global ValidationPipe: whitelist, reject unknown fields, transform; errors as VALIDATION_ERROR by field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: (errors) => DomainError.validationMany(collect(errors, '', {})),
  });
}
