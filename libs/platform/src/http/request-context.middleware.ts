import { DomainError, ErrorCode } from '@meridian/domain';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { runWithCorrelationId } from '../logging/correlation';

const CORRELATION = /^[A-Za-z0-9._-]{1,128}$/;

/** Gives every request a correlation id (from `X-Correlation-Id` when well-formed) for its log lines. */
export function correlationMiddleware(req: Request, res: Response, next: NextFunction): void {
  const supplied = req.headers['x-correlation-id'];
  const id = typeof supplied === 'string' && CORRELATION.test(supplied) ? supplied : randomUUID();
  res.setHeader('X-Correlation-Id', id);
  runWithCorrelationId(id, () => next());
}

/** Bodies of writes must be JSON; anything else is refused with 415 before it reaches a handler. */
export function jsonContentTypeMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && ['POST', 'PUT', 'PATCH'].includes(req.method)) {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json' && !type.endsWith('+json')) {
      const error = new DomainError(ErrorCode.BadRequest, `Content-Type must be application/json (got "${type || 'none'}").`);
      (error as DomainError & { status: number }).status = 415;
      return next(error);
    }
  }
  next();
}
