import 'reflect-metadata';
import { runService } from '@meridian/platform';
import { createScheduler } from './bootstrap';

runService('scheduler', async (config, logger) => {
  const app = await createScheduler(config, logger);
  logger.log({ level: 'information', message: `Meridian scheduler ${config.version} started` });
  return app;
});
