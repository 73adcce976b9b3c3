import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { JOB_DEFINITIONS } from './job-options';
import { JobName, JobPayloads, MERIDIAN_QUEUE } from './job-names';

/** The enqueue API: typed payloads, deterministic job ids, central options. */
@Injectable()
export class JobQueue {
  constructor(@InjectQueue(MERIDIAN_QUEUE) private readonly queue: Queue) {}

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<string> {
    const def = JOB_DEFINITIONS[name];
    const job = await this.queue.add(name, payload, { ...def.options, jobId: def.jobId(payload) });
    return job.id ?? def.jobId(payload);
  }

  /** Round-trips to Redis; throws when it is unreachable. */
  async ping(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.queue.getJobCounts('waiting'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Jobs waiting, active, delayed and failed: for operators and tests. */
  counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
  }
}
