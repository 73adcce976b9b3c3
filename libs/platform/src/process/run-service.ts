import { closeLogger, createServiceLogger, Logger } from '../logging/logger';
import { AppConfig, loadConfigOrExit, ServiceName } from '../config/app-config';

interface Closable {
  close(): Promise<void>;
}

/**
 * The life of one Meridian process: validated configuration, the service logger, the app, and a clean
 * stop on SIGTERM/SIGINT (app closed, logs flushed). A start-up failure ends the process with one line.
 */
export function runService(
  service: Exclude<ServiceName, 'migrate'>,
  start: (config: AppConfig, logger: Logger) => Promise<Closable>,
): void {
  (async () => {
    const config = loadConfigOrExit(service);
    const logger = createServiceLogger({ service, logDir: config.logDir, level: config.logLevel, console: config.logToConsole });
    const app = await start(config, logger);
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await app.close();
      await closeLogger(logger);
      process.exit(0);
    };
    process.once('SIGTERM', () => void stop());
    process.once('SIGINT', () => void stop());
  })().catch((e: unknown) => {
    process.stderr.write(`Meridian ${service} failed to start: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
