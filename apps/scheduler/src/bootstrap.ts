import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, Logger, NestWinstonLogger } from '@meridian/platform';
import { SchedulerModule } from './scheduler.module';
import { SchedulerOptions } from './scheduler.options';

/** Builds the scheduler: a Nest application context (no HTTP) that competes for leadership and, as leader, dispatches schedules and runs executions. */
export async function createScheduler(config: AppConfig, logger: Logger, options: SchedulerOptions = {}): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(SchedulerModule.forRoot(config, logger, options), {
    logger: new NestWinstonLogger(logger),
    abortOnError: false,
  });
  await app.init();
  return app;
}
