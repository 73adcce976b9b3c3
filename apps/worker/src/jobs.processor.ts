import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Dependency } from '@meridian/domain';
import { JOB_DEFINITIONS, JobName, JobPayloads, MERIDIAN_QUEUE, QueueName, REDIS_MAX_RECONNECT_DELAY_MS, RUNS_QUEUE } from '@meridian/jobs';
import {
  APP_CONFIG,
  AppConfig,
  classifyDependencyError,
  DependencyOutages,
  failureSummary,
  Logger,
  LOGGER,
  runWithCorrelationId,
} from '@meridian/platform';
import { DelayedError, Job } from 'bullmq';
import { JOB_HANDLERS, JobHandler } from './handlers/job-handler';

/**
 * BullMQ waits `runRetryDelay` (15 s by default) before asking Redis again after a connection error;
 * capped like the reconnection itself so jobs flow within about a second of Redis answering.
 */
const WORKER_OPTIONS = { runRetryDelay: REDIS_MAX_RECONNECT_DELAY_MS };

/** Takes every job of one queue and dispatches it to its handler by name. */
abstract class QueueProcessor extends WorkerHost implements OnModuleInit, OnApplicationShutdown {
  private readonly handlers: Map<string, JobHandler>;
  private readonly outages: DependencyOutages;

  protected constructor(
    private readonly queueName: QueueName,
    handlers: JobHandler[],
    private readonly config: AppConfig,
    private readonly logger: Logger,
  ) {
    super();
    this.handlers = new Map(handlers.filter((h) => JOB_DEFINITIONS[h.name].queue === queueName).map((h) => [h.name, h]));
    // Startup fails if a job can be enqueued on this queue that nothing here can run.
    const missing = Object.values(JobName).filter((n) => JOB_DEFINITIONS[n].queue === queueName && !this.handlers.has(n));
    if (missing.length) throw new Error(`No worker handler for job(s): ${missing.join(', ')}`);
    this.outages = DependencyOutages.of(logger);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.workerConcurrency;
    // Every error of the worker's connections goes through the service log (BullMQ would print it to
    // the console otherwise); an outage is one warning, its end one information line.
    this.worker.on('error', (error: Error) => {
      if (classifyDependencyError(error))
        this.outages.unavailable(Dependency.Queue, failureSummary(error), `worker of ${this.queueName}`, `worker:${this.queueName}`);
      else this.logger.log({ level: 'error', message: `Worker of ${this.queueName}: ${failureSummary(error)}`, error });
    });
    this.worker.getBackend().on('ready', () => this.outages.available(Dependency.Queue, Date.now(), `worker:${this.queueName}`));
  }

  /** Stops taking jobs; the jobs it is running finish first (a job cut short would be taken over after its lock expires). */
  async onApplicationShutdown(): Promise<void> {
    this.logger.log({ level: 'information', message: `Closing the worker of ${this.queueName}: no new jobs, running jobs finish.` });
    await this.worker.close();
    this.logger.log({ level: 'information', message: `Worker of ${this.queueName} closed.` });
  }

  async process(job: Job<JobPayloads[JobName]>, token?: string): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) throw new Error(`Unknown job "${job.name}" on queue ${this.queueName}`);
    if (token && !job.token) job.token = token;
    return runWithCorrelationId(String(job.id), async () => {
      this.logger.log({ level: 'debug', message: `Job ${job.name} ${job.id} started`, jobId: job.id, attempt: job.attemptsMade + 1 });
      return handler.handle(job.data as never, job as never);
    });
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    if (error instanceof DelayedError || error?.name === 'DelayedError') return;
    const dependency = classifyDependencyError(error);
    if (dependency) {
      // An outage, not a fault of the job: one warning per outage, the job's own line without a stack.
      this.outages.unavailable(dependency, failureSummary(error), `job ${job?.name}`);
      this.logger.log({ level: 'debug', message: `Job ${job?.name} ${job?.id} failed: ${failureSummary(error)}`, jobId: job?.id });
      return;
    }
    this.logger.log({ level: 'error', message: `Job ${job?.name} ${job?.id} failed: ${error.message}`, jobId: job?.id, error });
  }

  @OnWorkerEvent('completed')
  onCompleted(job: Job): void {
    this.logger.log({ level: 'debug', message: `Job ${job.name} ${job.id} completed`, jobId: job.id });
  }
}

/** Deletions, housekeeping and probes. */
@Processor(MERIDIAN_QUEUE, WORKER_OPTIONS)
export class JobsProcessor extends QueueProcessor {
  constructor(@Inject(JOB_HANDLERS) handlers: JobHandler[], @Inject(APP_CONFIG) config: AppConfig, @Inject(LOGGER) logger: Logger) {
    super(MERIDIAN_QUEUE, handlers, config, logger);
  }
}

/** Run-profile executions (import, synchronisation, export). */
@Processor(RUNS_QUEUE, WORKER_OPTIONS)
export class RunsProcessor extends QueueProcessor {
  constructor(@Inject(JOB_HANDLERS) handlers: JobHandler[], @Inject(APP_CONFIG) config: AppConfig, @Inject(LOGGER) logger: Logger) {
    super(RUNS_QUEUE, handlers, config, logger);
  }
}
