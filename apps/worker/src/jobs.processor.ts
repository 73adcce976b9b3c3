import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnModuleInit } from '@nestjs/common';
import { JOB_DEFINITIONS, JobName, JobPayloads, MERIDIAN_QUEUE, QueueName, RUNS_QUEUE } from '@meridian/jobs';
import { APP_CONFIG, AppConfig, Logger, LOGGER, runWithCorrelationId } from '@meridian/platform';
import { DelayedError, Job } from 'bullmq';
import { JOB_HANDLERS, JobHandler } from './handlers/job-handler';

/** Takes every job of one queue and dispatches it to its handler by name. */
abstract class QueueProcessor extends WorkerHost implements OnModuleInit {
  private readonly handlers: Map<string, JobHandler>;

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
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.workerConcurrency;
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
    this.logger.log({ level: 'error', message: `Job ${job?.name} ${job?.id} failed: ${error.message}`, jobId: job?.id, error });
  }

  @OnWorkerEvent('completed')
  onCompleted(job: Job): void {
    this.logger.log({ level: 'debug', message: `Job ${job.name} ${job.id} completed`, jobId: job.id });
  }
}

/** Deletions, housekeeping and probes. */
@Processor(MERIDIAN_QUEUE)
export class JobsProcessor extends QueueProcessor {
  constructor(@Inject(JOB_HANDLERS) handlers: JobHandler[], @Inject(APP_CONFIG) config: AppConfig, @Inject(LOGGER) logger: Logger) {
    super(MERIDIAN_QUEUE, handlers, config, logger);
  }
}

/** Run-profile executions (import, synchronisation, export). */
@Processor(RUNS_QUEUE)
export class RunsProcessor extends QueueProcessor {
  constructor(@Inject(JOB_HANDLERS) handlers: JobHandler[], @Inject(APP_CONFIG) config: AppConfig, @Inject(LOGGER) logger: Logger) {
    super(RUNS_QUEUE, handlers, config, logger);
  }
}
