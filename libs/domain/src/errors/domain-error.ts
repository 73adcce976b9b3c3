/** Error codes of the API error body (ARCHITECTURE.md §4); the web layer maps each to an HTTP status. */
export enum ErrorCode {
  ValidationError = 'VALIDATION_ERROR',
  BadRequest = 'BAD_REQUEST',
  Unauthorised = 'UNAUTHORISED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  RateLimited = 'RATE_LIMITED',
  ServiceUnavailable = 'SERVICE_UNAVAILABLE',
  InternalError = 'INTERNAL_ERROR',
}

export type ValidationErrors = Record<string, string[]>;

/** The one error type libraries throw; it carries an API error code and optional field errors. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly validationErrors?: ValidationErrors,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** A 400 VALIDATION_ERROR naming one field. */
  static validation(field: string, message: string): DomainError {
    return new DomainError(ErrorCode.ValidationError, message, undefined, { [field]: [message] });
  }

  /** A 400 VALIDATION_ERROR carrying several field errors. */
  static validationMany(errors: ValidationErrors, message = 'One or more fields are invalid.'): DomainError {
    return new DomainError(ErrorCode.ValidationError, message, undefined, errors);
  }

  /** A 404 NOT_FOUND for a resource of the given kind. */
  static notFound(kind: string, id: string | number): DomainError {
    return new DomainError(ErrorCode.NotFound, `${kind} ${id} does not exist.`);
  }

  static conflict(message: string, details?: unknown): DomainError {
    return new DomainError(ErrorCode.Conflict, message, details);
  }

  static badRequest(message: string, details?: unknown): DomainError {
    return new DomainError(ErrorCode.BadRequest, message, details);
  }
}

/** The dependencies whose outage a request can meet; each names itself in the answer and the log. */
export enum Dependency {
  Database = 'database',
  Queue = 'queue',
  IdentityProvider = 'identityProvider',
}

/** How messages name each dependency, as the subject that opens them ("The database (PostgreSQL) is …"). */
export const DEPENDENCY_NAMES: Record<Dependency, string> = {
  [Dependency.Database]: 'The database (PostgreSQL)',
  [Dependency.Queue]: 'The job queue (Redis)',
  [Dependency.IdentityProvider]: 'The identity provider',
};

/**
 * A request could not be served because a dependency is unavailable: an expected, transient outcome.
 * The API answers 503 SERVICE_UNAVAILABLE with `Retry-After: retryAfterSeconds` and logs one warning per
 * outage, without a stack.
 */
export class DependencyUnavailableError extends DomainError {
  constructor(
    readonly dependency: Dependency,
    message: string,
    readonly retryAfterSeconds = 5,
    details?: unknown,
  ) {
    super(ErrorCode.ServiceUnavailable, message, details);
    this.name = 'DependencyUnavailableError';
  }
}

/** Collects field errors and throws them together. */
export class ValidationErrorCollector {
  private readonly errors: ValidationErrors = {};

  add(field: string, message: string): this {
    (this.errors[field] ??= []).push(message);
    return this;
  }

  get hasErrors(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  /** How many fields have messages. */
  get fieldCount(): number {
    return Object.keys(this.errors).length;
  }

  has(field: string): boolean {
    return field in this.errors;
  }

  /** The messages collected so far, by field (for an error that carries more than field messages). */
  get byField(): Readonly<ValidationErrors> {
    return this.errors;
  }

  throwIfAny(message?: string): void {
    if (this.hasErrors) throw DomainError.validationMany(this.errors, message);
  }
}
