import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import {
  AppConfig,
  correlationMiddleware,
  createValidationPipe,
  HttpExceptionFilter,
  jsonContentTypeMiddleware,
  Logger,
  NestWinstonLogger,
  nulByteMiddleware,
  requestReceivedMiddleware,
} from '@meridian/platform';
import express, { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { readFileSync } from 'node:fs';
import { AppModule } from './app.module';
import { setupOpenApi } from './http/openapi';

/**
 * Requests Node rejects before Express sees them (oversized headers, broken HTTP) still get the error
 * body instead of an empty response.
 */
function answerMalformedRequests(app: INestApplication): void {
  const server = app.getHttpServer() as import('node:http').Server;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: import('node:stream').Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify({
      code: 'BAD_REQUEST',
      message: tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
      timestamp: new Date().toISOString(),
      path: '',
    });
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** Builds the web application (used by main.ts and by the tests), initialised but not listening. */
export async function createWebApp(config: AppConfig, logger: Logger): Promise<INestApplication> {
  const httpsOptions = config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logger), {
    bodyParser: false,
    httpsOptions,
    logger: new NestWinstonLogger(logger),
    abortOnError: false,
  });
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  app.use(requestReceivedMiddleware);
  app.use(correlationMiddleware);
  app.use(
    helmet({
      contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': config.tls ? [] : null } },
      hsts: !!config.tls,
    }),
  );
  if (config.corsOrigins.length)
    app.enableCors({ origin: config.corsOrigins, allowedHeaders: ['Content-Type', 'Authorization', 'X-Api-Key', 'X-Correlation-Id'] });
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () =>
      logger.log({
        level: 'debug',
        message: `${req.method} ${req.originalUrl.split('?')[0]} ${res.statusCode}`,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      }),
    );
    next();
  });
  app.use(jsonContentTypeMiddleware);
  app.use(express.json({ limit: config.bodyLimit, strict: true, type: ['application/json', 'application/*+json'] }));
  app.use(nulByteMiddleware);
  // Answer body-parser and content-type failures here, with their real cause: past this point Nest
  // would turn them into generic exceptions.
  const filter = new HttpExceptionFilter(logger);
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const { status, body, retryAfterSeconds } = filter.toBody(err, req);
    if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
    res.status((err as { status?: number })?.status === 415 ? 415 : status).json(body);
  });
  app.useGlobalPipes(createValidationPipe());
  setupOpenApi(app, config.version);
  await app.init();
  answerMalformedRequests(app);
  (app.getHttpServer() as import('node:http').Server).once('close', () =>
    logger.log({ level: 'information', message: 'HTTP server closed: no new requests are accepted.' }),
  );
  return app;
}
