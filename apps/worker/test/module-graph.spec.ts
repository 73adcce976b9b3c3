import { INestApplicationContext } from '@nestjs/common';
import {
  ApiKeysService,
  CertificatesService,
  ConnectedSystemDeletionService,
  ConnectedSystemsService,
  ConnectorContextFactory,
  HistoryService,
  HistoryCleanupService,
  HousekeepingService,
  MetaverseObjectsWriter,
  RunProfileExecutor,
  RunProfilesService,
  ScheduleExecutionRunner,
  SchedulesService,
} from '@meridian/application';
import { closeLogger, createServiceLogger, loadConfig, Logger } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment } from '@meridian/testing';
import { createWorker } from '../src/bootstrap';

describe('the worker process holds the engine and the jobs it runs, nothing of the API or the scheduler', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let logger: Logger;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    db = await createTestDatabase('worker-modules');
    env = createTestEnvironment(db.url);
    const config = loadConfig('worker', env.env);
    logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: 'Warning', console: false });
    worker = await createWorker(config, logger);
  });

  afterAll(async () => {
    await worker?.close();
    await closeLogger(logger);
    await env?.cleanup();
    await db?.drop();
  });

  it.each([RunProfileExecutor, HousekeepingService, ConnectedSystemDeletionService, HistoryCleanupService, ConnectorContextFactory])(
    'holds %p',
    (type) => {
      expect(worker.get(type)).toBeInstanceOf(type);
    },
  );

  it.each([
    ApiKeysService,
    MetaverseObjectsWriter,
    SchedulesService,
    ScheduleExecutionRunner,
    ConnectedSystemsService,
    RunProfilesService,
    CertificatesService,
    HistoryService,
  ])('does not hold %p', (type) => {
    expect(() => worker.get(type)).toThrow(/could not find/i);
  });
});
