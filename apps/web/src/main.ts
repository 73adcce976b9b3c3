import 'reflect-metadata';
import { runService } from '@meridian/platform';
import { createWebApp } from './bootstrap';

runService('web', async (config, logger) => {
  const app = await createWebApp(config, logger);
  await app.listen(config.port, config.host);
  const scheme = config.tls ? 'https' : 'http';
  const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
  logger.log({
    level: 'information',
    message: `Meridian web ${config.version} listening on ${scheme}://${host}:${config.port} (API reference: ${scheme}://${host}:${config.port}/api/reference)`,
  });
  return app;
});
