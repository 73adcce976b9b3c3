import { Injectable } from '@nestjs/common';
import { QueueProbesService } from '@meridian/application';
import { JobName, JobPayloads } from '@meridian/jobs';
import { hostname } from 'node:os';
import { JobHandler } from './job-handler';

/** Marks a queue probe processed: the proof that web → Redis → worker → PostgreSQL works. */
@Injectable()
export class NoopHandler implements JobHandler<JobName.Noop> {
  readonly name = JobName.Noop;

  constructor(private readonly probes: QueueProbesService) {}

  async handle(payload: JobPayloads[JobName.Noop]) {
    const updated = await this.probes.complete(payload.probeId, `${hostname()}:${process.pid}`);
    return { updated };
  }
}
