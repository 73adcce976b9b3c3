import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, Logger, NestWinstonLogger } from '@meridian/platform';
import { SchedulerModule } from './scheduler.module';

/** Builds the scheduler: a Nest application context (no HTTP) that competes for leadership. */
export async function createScheduler(config: AppConfig, logger: Logger): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(SchedulerModule.forRoot(config, logger), { logger: new NestWinstonLogger(logger), abortOnError: false });
  await app.init();
  return app;
}
