import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Dependency } from '@meridian/domain';
import type { NextFunction, Request, Response } from 'express';
import { Observable, retry, throwError, timer } from 'rxjs';
import type { Principal } from '../auth/principal';
import { classifyDependencyError } from '../errors/dependency-errors';
import { DependencyOutages } from '../errors/dependency-outages';
import { LOGGER, Logger } from '../logging/logger';

const READS = new Set(['GET', 'HEAD']);

/**
 * PostgreSQL reports a terminated session on the query first and closes the socket just after; by then
 * the pool may have taken the client back as idle. A short pause lets the close arrive, so the pool
 * drops that client and the second attempt gets a fresh connection.
 */
const RETRY_PAUSE_MS = 100;

const receivedAt = new WeakMap<object, number>();

/** Notes when a request arrived (before any guard reads the database): the start of what it proves. */
export function requestReceivedMiddleware(req: Request, _res: Response, next: NextFunction): void {
  receivedAt.set(req, Date.now());
  next();
}

/**
 * Reads survive a database connection that broke under them: a GET or HEAD whose handler fails because
 * PostgreSQL dropped the connection runs once more (the pool has discarded the broken client, so the
 * second attempt takes a fresh one, see RETRY_PAUSE_MS); if that fails too, the filter answers 503. Writes are never run
 * twice: they answer 503 and the client decides.
 *
 * It also ends a recorded database outage: a request authenticated after the outage began has read the
 * database (API keys and token subjects are looked up there). The identity provider's outages are the
 * token verifier's to log.
 */
@Injectable()
export class DependencyRetryInterceptor implements NestInterceptor {
  private readonly outages: DependencyOutages;

  constructor(@Inject(LOGGER) private readonly logger: Logger) {
    this.outages = DependencyOutages.of(logger);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    this.noteAnswered(req.user, receivedAt.get(req) ?? Date.now());
    const handled = next.handle();
    if (!READS.has(req.method)) return handled;
    return handled.pipe(
      retry({
        count: 1,
        delay: (error: unknown) => {
          if (classifyDependencyError(error) !== Dependency.Database) return throwError(() => error);
          this.logger.log({ level: 'debug', message: `${req.method} ${req.path}: the database connection failed; reading once more` });
          return timer(RETRY_PAUSE_MS);
        },
      }),
    );
  }

  private noteAnswered(user: Principal | undefined, started: number): void {
    if (!user) return;
    this.outages.available(Dependency.Database, started);
  }
}
