import { DynamicModule, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApplicationCoreModule, ScheduleExecutionRunner, ScheduleRunnerModule } from '@meridian/application';
import { AppConfig, closeLogger, createServiceLogger, loadConfig, Logger, NestWinstonLogger, PlatformModule } from '@meridian/platform';
import {
  createTestDatabase,
  createTestEnvironment,
  OpenApiValidator,
  recordResponses,
  ResponseSample,
  TestDatabase,
  TestEnvironment,
} from '@meridian/testing';
import { appendFileSync } from 'node:fs';
import request from 'supertest';
import { createWebApp } from '../src/bootstrap';

export interface WebHarness {
  app: INestApplication;
  http: ReturnType<typeof request>;
  adminKey: string;
  db: TestDatabase;
  env: TestEnvironment;
  logger: Logger;
  /** Responses so far that the served OpenAPI document does not describe; close() fails when there are any. */
  openApiViolations: string[];
  /** How many responses have been checked against the document. */
  openApiChecked: number;
  close(): Promise<void>;
}

/**
 * What the document must describe. Everything under /api/v1 is checked against its operation. An
 * unknown route or method there (404/405) is outside the document by nature: only its error body is
 * checked. The document itself, the interactive reference and the console are not API operations.
 * OPTIONS (CORS preflight) and HEAD carry no body worth checking.
 */
export function openApiViolationsOf(validator: OpenApiValidator, sample: ResponseSample): string[] {
  const path = sample.path.split('?')[0];
  if (!path.startsWith('/api/v1/') || sample.method === 'OPTIONS' || sample.method === 'HEAD') return [];
  // A request outside the API is answered 404/405 — or 400 when refused before routing (a NUL character).
  if (!validator.operationFor(sample.method, path) && [400, 404, 405].includes(sample.status))
    return validator.validateComponent('ErrorBodyDto', sample.body, `${sample.method} ${path} → ${sample.status}`);
  return validator.validate(sample);
}

/** Every response an app sends, checked against the OpenAPI document it serves. */
export interface OpenApiCheck {
  /** Violations so far. */
  readonly violations: string[];
  /** How many responses have been checked. */
  readonly checked: number;
  /** Throws, listing them, when any response so far broke the document. */
  assertConforms(): void;
}

/**
 * Records every response of the app's HTTP server and checks it against the document the app serves
 * at /api/openapi.json (read once, now). Checking is deferred to when the results are read.
 */
export async function checkResponsesAgainstDocument(app: INestApplication): Promise<OpenApiCheck> {
  const samples: ResponseSample[] = [];
  recordResponses(app.getHttpServer(), (sample) => samples.push(sample));
  const document = (await request(app.getHttpServer()).get('/api/openapi.json').expect(200)).body;
  const validator = new OpenApiValidator(document, { closedObjects: true });
  const violations: string[] = [];
  let checked = 0;
  const drain = () => {
    for (const sample of samples.splice(0)) {
      violations.push(...openApiViolationsOf(validator, sample));
      checked++;
    }
  };
  let reported = 0;
  return {
    get violations() {
      drain();
      return violations;
    },
    get checked() {
      drain();
      return checked;
    },
    assertConforms() {
      drain();
      const fresh = violations.slice(reported);
      reported = violations.length;
      if (fresh.length && process.env.MERIDIAN_OPENAPI_VIOLATIONS_FILE)
        appendFileSync(process.env.MERIDIAN_OPENAPI_VIOLATIONS_FILE, fresh.map((v) => `${v}\n`).join(''));
      if (violations.length) throw new Error(`Responses outside the OpenAPI document:\n${[...new Set(violations)].join('\n')}`);
    },
  };
}

/**
 * A real web app on a throwaway database and Redis prefix. Rate limits are raised through the API so
 * suites that make many calls are not throttled (the rate-limit test lowers them again). Every
 * response is checked against the served OpenAPI document; close() fails the spec if one broke it.
 */
export async function startWebApp(overrides: Record<string, string> = {}, options: { highRateLimits?: boolean } = {}): Promise<WebHarness> {
  const db = await createTestDatabase('web');
  const env = createTestEnvironment(db.url, overrides);
  const config = loadConfig('web', env.env);
  const logger = createServiceLogger({ service: 'web', logDir: config.logDir, level: config.logLevel, console: false });
  const app = await createWebApp(config, logger);
  const openApi = await checkResponsesAgainstDocument(app);
  const http = request(app.getHttpServer());
  const harness: WebHarness = {
    app,
    http,
    adminKey: env.bootstrapKey,
    db,
    env,
    logger,
    get openApiViolations() {
      return openApi.violations;
    },
    get openApiChecked() {
      return openApi.checked;
    },
    close: async () => {
      await app.close();
      await closeLogger(logger);
      await env.cleanup();
      await db.drop();
      openApi.assertConforms();
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
