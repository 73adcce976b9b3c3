import 'reflect-metadata';
import { closeLogger, createServiceLogger, loadConfigOrExit } from '@meridian/platform';
import { createScheduler } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfigOrExit('scheduler');
  const logger = createServiceLogger({ service: 'scheduler', logDir: config.logDir, level: config.logLevel, console: config.logToConsole });
  const app = await createScheduler(config, logger);
  logger.log({ level: 'information', message: `Meridian scheduler ${config.version} started` });
  const stop = async () => {
    await app.close();
    await closeLogger(logger);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((e: unknown) => {
  process.stderr.write(`Meridian scheduler failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
