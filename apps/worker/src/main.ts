import 'reflect-metadata';
import { closeLogger, createServiceLogger, loadConfigOrExit } from '@meridian/platform';
import { createWorker } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfigOrExit('worker');
  const logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: config.logLevel, console: config.logToConsole });
  const app = await createWorker(config, logger);
  logger.log({ level: 'information', message: `Meridian worker ${config.version} consuming jobs (concurrency ${config.workerConcurrency})` });
  const stop = async () => {
    await app.close();
    await closeLogger(logger);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((e: unknown) => {
  process.stderr.write(`Meridian worker failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
