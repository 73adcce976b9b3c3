import { closeLogger, createServiceLogger, Logger } from '../logging/logger';
import { AppConfig, loadConfigOrExit, ServiceName } from '../config/app-config';

interface Closable {
  close(): Promise<void>;
}

/**
 * The life of one Meridian process: validated configuration, the service logger, the app, and a clean
 * stop on SIGTERM/SIGINT: the stop is logged, the app closed (each part logs what it released: the HTTP
 * server, the workers, the leader lock, the queue connections, the database pool), the end logged and
 * the logs flushed. A start-up failure ends the process with one line.
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
    const stop = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      const started = Date.now();
      logger.log({ level: 'information', message: `Meridian ${service} stopping (${signal}).` });
      let code = 0;
      try {
        await app.close();
      } catch (e) {
        code = 1;
        logger.log({ level: 'error', message: `Meridian ${service} did not stop cleanly: ${(e as Error).message}`, error: e });
      }
      logger.log({ level: 'information', message: `Meridian ${service} stopped in ${Date.now() - started} ms.` });
      await closeLogger(logger);
      process.exit(code);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  })().catch((e: unknown) => {
    process.stderr.write(`Meridian ${service} failed to start: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
