import { DynamicModule, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApplicationCoreModule, ScheduleExecutionRunner, ScheduleRunnerModule } from '@meridian/application';
import { AppConfig, closeLogger, createServiceLogger, loadConfig, Logger, NestWinstonLogger, PlatformModule } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment } from '@meridian/testing';
import request from 'supertest';
import { createWebApp } from '../src/bootstrap';

export interface WebHarness {
  app: INestApplication;
  http: ReturnType<typeof request>;
  adminKey: string;
  db: TestDatabase;
  env: TestEnvironment;
  logger: Logger;
  close(): Promise<void>;
}

/**
 * A real web app on a throwaway database and Redis prefix. Rate limits are raised through the API so
 * suites that make many calls are not throttled (the rate-limit test lowers them again).
 */
export async function startWebApp(overrides: Record<string, string> = {}, options: { highRateLimits?: boolean } = {}): Promise<WebHarness> {
  const db = await createTestDatabase('web');
  const env = createTestEnvironment(db.url, overrides);
  const config = loadConfig('web', env.env);
  const logger = createServiceLogger({ service: 'web', logDir: config.logDir, level: config.logLevel, console: false });
  const app = await createWebApp(config, logger);
  const http = request(app.getHttpServer());
  const harness: WebHarness = {
    app,
    http,
    adminKey: env.bootstrapKey,
    db,
    env,
    logger,
    close: async () => {
      await app.close();
      await closeLogger(logger);
      await env.cleanup();
      await db.drop();
    },
  };
  if (options.highRateLimits !== false) {
    // API keys keep their own default (6000 a minute per key), above what any spec sends with one key.
    for (const key of ['Security.RateLimiting.AuthenticatedRequestsPerMinute', 'Security.RateLimiting.UnauthenticatedRequestsPerMinute']) {
      await http.put(`/api/v1/service-settings/${key}`).set('X-Api-Key', env.bootstrapKey).send({ value: 1_000_000 }).expect(200);
    }
  }
  return harness;
}

@Module({})
class ScheduleRunnerHost {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: ScheduleRunnerHost,
      imports: [PlatformModule.forRoot(config, logger), ApplicationCoreModule.forRoot(config), ScheduleRunnerModule.forRoot()],
    };
  }
}

/**
 * The schedule execution runner as the scheduler process hosts it (the web app does not run schedules),
 * on the harness's database, for tests that drive executions through their steps.
 */
export async function startScheduleRunner(h: WebHarness): Promise<{ runner: ScheduleExecutionRunner; close(): Promise<void> }> {
  const config = loadConfig('scheduler', h.env.env);
  const context = await NestFactory.createApplicationContext(ScheduleRunnerHost.forRoot(config, h.logger), {
    logger: new NestWinstonLogger(h.logger),
    abortOnError: false,
  });
  await context.init();
  return { runner: context.get(ScheduleExecutionRunner), close: () => context.close() };
}
