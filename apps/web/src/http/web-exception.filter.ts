import { ArgumentsHost, Catch, Inject, NotFoundException } from '@nestjs/common';
import { ErrorCode } from '@meridian/domain';
import { HttpExceptionFilter, LOGGER, Logger } from '@meridian/platform';
import type { Request, Response } from 'express';
import { RouteCatalog } from './route-catalog';

/** The platform filter plus route awareness: unknown routes are 404, known paths with the wrong method 405. */
@Catch()
export class WebExceptionFilter extends HttpExceptionFilter {
  constructor(
    @Inject(LOGGER) logger: Logger,
    private readonly catalog: RouteCatalog,
  ) {
    super(logger);
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    if (exception instanceof NotFoundException && /^Cannot [A-Z]+ /.test(exception.message)) {
      const path = (req.originalUrl ?? req.url).split('?')[0];
      const allowed = this.catalog.methodsFor(path);
      const base = { timestamp: new Date().toISOString(), path };
      if (allowed.length) {
        res.setHeader('Allow', allowed.join(', '));
        res.status(405).json({
          code: ErrorCode.BadRequest,
          message: `Method ${req.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`,
          ...base,
        });
      } else {
        res.status(404).json({ code: ErrorCode.NotFound, message: `No endpoint ${req.method} ${path}.`, ...base });
      }
      return;
    }
    super.catch(exception, host);
  }
}
