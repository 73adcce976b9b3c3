import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { JOB_DEFINITIONS, REPEATABLE_JOBS } from './job-options';
import { JobName, JobPayloads, MERIDIAN_QUEUE, QueueName, RUNS_QUEUE } from './job-names';

/** What a process does when a queue connection fails or (re)connects. */
export interface QueueConnectionListener {
  error(queue: QueueName, error: Error): void;
  ready(queue: QueueName): void;
}

/** The enqueue API: typed payloads, deterministic job ids, central options. */
@Injectable()
export class JobQueue {
  private readonly listeners: QueueConnectionListener[] = [];

  private readonly queues: Record<QueueName, Queue>;

  constructor(
    @InjectQueue(MERIDIAN_QUEUE) private readonly queue: Queue,
    @InjectQueue(RUNS_QUEUE) runs: Queue,
  ) {
    this.queues = { [MERIDIAN_QUEUE]: queue, [RUNS_QUEUE]: runs };
    // Connection errors go to the listeners (the service log), never to the console.
    for (const [name, q] of Object.entries(this.queues) as Array<[QueueName, Queue]>) {
      q.on('error', (error: Error) => {
        for (const listener of this.listeners) listener.error(name, error);
      });
      q.getBackend().on('ready', () => {
        for (const listener of this.listeners) listener.ready(name);
      });
    }
  }

  /** Subscribes to the queues' connection errors and (re)connections. */
  onConnection(listener: QueueConnectionListener): void {
    this.listeners.push(listener);
  }

  /** Closes the queues' connections (idempotent). */
  async close(): Promise<void> {
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<string> {
    const def = JOB_DEFINITIONS[name];
    const job = await this.queues[def.queue].add(name, payload, { ...def.options, jobId: def.jobId(payload) });
    return job.id ?? def.jobId(payload);
  }

  /**
   * Registers the repeatable jobs, housekeeping and the daily history cleanup (idempotent: one scheduler
   * per job, keyed by its fixed id, however many workers call it).
   */
  async scheduleHousekeeping(): Promise<void> {
    for (const { name, every } of REPEATABLE_JOBS) {
      const def = JOB_DEFINITIONS[name];
      await this.queues[def.queue].upsertJobScheduler(def.jobId({}), { every }, { name, data: {}, opts: def.options });
    }
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
  async counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const q of Object.values(this.queues)) {
      for (const [k, n] of Object.entries(await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed')))
        out[k] = (out[k] ?? 0) + n;
    }
    return out;
  }
}
