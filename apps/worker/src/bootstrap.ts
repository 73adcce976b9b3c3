import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, Logger, NestWinstonLogger } from '@meridian/platform';
import { WorkerModule } from './worker.module';

/** Builds the worker: a Nest application context (no HTTP) consuming the job queue. */
export async function createWorker(config: AppConfig, logger: Logger): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config, logger), {
    logger: new NestWinstonLogger(logger),
    abortOnError: false,
  });
  await app.init();
  return app;
}
