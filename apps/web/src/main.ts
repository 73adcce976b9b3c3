import 'reflect-metadata';
import { closeLogger, createServiceLogger, loadConfigOrExit } from '@meridian/platform';
import { createWebApp } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfigOrExit('web');
  const logger = createServiceLogger({ service: 'web', logDir: config.logDir, level: config.logLevel, console: config.logToConsole });
  const app = await createWebApp(config, logger);
  await app.listen(config.port, config.host);
  const scheme = config.tls ? 'https' : 'http';
  const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
  logger.log({ level: 'information', message: `Meridian web ${config.version} listening on ${scheme}://${host}:${config.port} (API reference: ${scheme}://${host}:${config.port}/api/reference)` });
  const stop = async () => {
    await app.close();
    await closeLogger(logger);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((e: unknown) => {
  process.stderr.write(`Meridian web failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
