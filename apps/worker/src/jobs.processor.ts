import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnModuleInit } from '@nestjs/common';
import { JobName, JobPayloads, MERIDIAN_QUEUE } from '@meridian/jobs';
import { APP_CONFIG, AppConfig, Logger, LOGGER, runWithCorrelationId } from '@meridian/platform';
import type { Job } from 'bullmq';
import { JOB_HANDLERS, JobHandler } from './handlers/job-handler';

/** Takes every job from the queue and dispatches it to its handler by name. */
@Processor(MERIDIAN_QUEUE)
export class JobsProcessor extends WorkerHost implements OnModuleInit {
  private readonly handlers: Map<string, JobHandler>;

  constructor(
    @Inject(JOB_HANDLERS) handlers: JobHandler[],
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
    this.handlers = new Map(handlers.map((h) => [h.name, h]));
    // Startup fails if a job can be enqueued that nothing here can run.
    const missing = Object.values(JobName).filter((n) => !this.handlers.has(n));
    if (missing.length) throw new Error(`No worker handler for job(s): ${missing.join(', ')}`);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.workerConcurrency;
  }

  async process(job: Job<JobPayloads[JobName]>): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) throw new Error(`Unknown job "${job.name}"`);
    return runWithCorrelationId(String(job.id), async () => {
      this.logger.log({ level: 'debug', message: `Job ${job.name} ${job.id} started`, jobId: job.id, attempt: job.attemptsMade + 1 });
      return handler.handle(job.data as never, job as never);
    });
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    this.logger.log({ level: 'error', message: `Job ${job?.name} ${job?.id} failed: ${error.message}`, jobId: job?.id, error });
  }

  @OnWorkerEvent('completed')
  onCompleted(job: Job): void {
    this.logger.log({ level: 'debug', message: `Job ${job.name} ${job.id} completed`, jobId: job.id });
  }
}
