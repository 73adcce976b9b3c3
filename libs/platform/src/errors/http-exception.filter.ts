import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { Dependency, DependencyUnavailableError, DomainError, ErrorCode } from '@meridian/domain';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { LOGGER, Logger } from '../logging/logger';
import { asDependencyUnavailable, failureSummary } from './dependency-errors';
import { DependencyOutages } from './dependency-outages';
import { CODE_BY_STATUS, ErrorBody, STATUS_BY_CODE } from './error-body';

type ErrorBase = Pick<ErrorBody, 'timestamp' | 'path'>;

/** Every 503 tells the client when to try again (docs/api.md "Errors"). */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/**
 * Maps everything thrown while handling a request to the error body: DomainErrors by code, Nest's
 * HTTP exceptions by status, body-parser failures (malformed JSON, oversize bodies) to 400/413, a
 * dependency outage (PostgreSQL, Redis, the identity provider; thrown as such or recognised from the
 * driver's error) to 503 with Retry-After, a 503 the code chose to a warning in the log, and anything
 * else to a 500 whose error id and stack are in the log — never a stack trace in the response.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly outages: DependencyOutages;

  constructor(@Inject(LOGGER) private readonly logger: Logger) {
    this.outages = DependencyOutages.of(logger);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const { status, body, retryAfterSeconds } = this.toBody(exception, req);
    if (res.headersSent) return;
    if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
    res.status(status).json(body);
  }

  toBody(exception: unknown, req: Request): { status: number; body: ErrorBody; retryAfterSeconds?: number } {
    const base = { timestamp: new Date().toISOString(), path: req.originalUrl?.split('?')[0] ?? req.url };
    const outage = asDependencyUnavailable(exception);
    if (outage) return this.dependencyUnavailable(outage, exception, req, base);
    if (exception instanceof DomainError) {
      const status = STATUS_BY_CODE[exception.code] ?? 400;
      if (exception.code === ErrorCode.ServiceUnavailable) return this.unavailable(exception, req, base);
      if (status >= 500) return this.internal(exception, req, base, status, exception.code);
      return {
        status,
        body: {
          code: exception.code,
          message: exception.message,
          details: exception.details,
          validationErrors: exception.validationErrors,
          ...base,
        },
      };
    }
    const parserError = exception as BodyParserError;
    if (parserError && typeof parserError === 'object' && typeof parserError.type === 'string') {
      if (parserError.type === 'entity.too.large') {
        return {
          status: 413,
          body: {
            code: ErrorCode.PayloadTooLarge,
            message: `The request body is larger than the limit of ${parserError.limit ?? '?'} bytes.`,
            ...base,
          },
        };
      }
      if (parserError.type === 'entity.parse.failed') {
        return {
          status: 400,
          body: {
            code: ErrorCode.ValidationError,
            message: 'The request body is not valid JSON.',
            details: { parser: parserError.message },
            validationErrors: { body: ['must be valid JSON'] },
            ...base,
          },
        };
      }
      if (parserError.status && parserError.status < 500) {
        return {
          status: parserError.status,
          body: { code: CODE_BY_STATUS[parserError.status] ?? ErrorCode.BadRequest, message: parserError.message, ...base },
        };
      }
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 503) return this.unavailable(exception, req, base);
      if (status >= 500) return this.internal(exception, req, base, status, ErrorCode.InternalError);
      const response = exception.getResponse();
      const payload = typeof response === 'object' && response !== null ? (response as Record<string, unknown>) : {};
      const message =
        typeof payload.message === 'string'
          ? payload.message
          : Array.isArray(payload.message)
            ? (payload.message as string[]).join('; ')
            : exception.message;
      const code = (typeof payload.code === 'string' ? payload.code : undefined) ?? CODE_BY_STATUS[status] ?? ErrorCode.BadRequest;
      return {
        status,
        body: {
          code,
          message,
          details: payload.details,
          validationErrors: payload.validationErrors as ErrorBody['validationErrors'],
          ...base,
        },
      };
    }
    return this.internal(exception, req, base, 500, ErrorCode.InternalError);
  }

  /**
   * A dependency is down: an expected, transient outcome. The first failure of an outage is one warning
   * (DependencyOutages), the others a debug line each; never a stack. The body names the dependency.
   * The identity provider's outages are logged where they are seen whole — by the token verifier, which
   * also knows when the provider answers again and that tokens signed with cached keys still pass.
   */
  private dependencyUnavailable(outage: DependencyUnavailableError, cause: unknown, req: Request, base: ErrorBase) {
    const errorId = randomUUID();
    const detail = cause === outage ? outage.message : `${outage.message} (${failureSummary(cause)})`;
    if (outage.dependency !== Dependency.IdentityProvider)
      this.outages.unavailable(outage.dependency, detail, `${req.method} ${base.path}`);
    this.logger.log({
      level: 'debug',
      message: `Service unavailable ${errorId} on ${req.method} ${base.path}: ${outage.message}`,
      errorId,
      code: ErrorCode.ServiceUnavailable,
      dependency: outage.dependency,
    });
    return {
      status: 503,
      body: { code: ErrorCode.ServiceUnavailable, message: outage.message, details: outage.details, errorId, ...base },
      retryAfterSeconds: outage.retryAfterSeconds,
    };
  }

  /**
   * A 503 the code chose to answer (single sign-on not configured): an expected outcome
   * anyone may trigger, so a warning without a stack; an error with a stack would let anonymous calls
   * fill the error log.
   */
  private unavailable(exception: Error, req: Request, base: ErrorBase) {
    const errorId = randomUUID();
    this.logger.log({
      level: 'warning',
      message: `Service unavailable ${errorId} on ${req.method} ${base.path}: ${exception.message}`,
      errorId,
      code: ErrorCode.ServiceUnavailable,
    });
    return {
      status: 503,
      body: { code: ErrorCode.ServiceUnavailable, message: exception.message, errorId, ...base },
      retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
    };
  }

  private internal(exception: unknown, req: Request, base: ErrorBase, status: number, code: ErrorCode) {
    const errorId = randomUUID();
    const err = exception instanceof Error ? exception : new Error(String(exception));
    this.logger.log({
      level: 'error',
      message: `Unhandled error ${errorId} on ${req.method} ${base.path}: ${err.message}`,
      errorId,
      error: err,
    });
    const message = `An internal error occurred. Quote error id ${errorId} when reporting it.`;
    return { status, body: { code, message, errorId, ...base } };
  }
}
