import 'reflect-metadata';
import { runService } from '@meridian/platform';
import { createWorker } from './bootstrap';

runService('worker', async (config, logger) => {
  const app = await createWorker(config, logger);
  logger.log({
    level: 'information',
    message: `Meridian worker ${config.version} consuming jobs (concurrency ${config.workerConcurrency})`,
  });
  return app;
});
