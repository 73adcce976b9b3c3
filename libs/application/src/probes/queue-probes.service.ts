import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Dependency, DependencyUnavailableError, DomainError } from '@meridian/domain';
import { JobName, JobQueue } from '@meridian/jobs';
import { QueueProbeEntity, QueueProbeStore } from '@meridian/persistence';
import { DataSource } from 'typeorm';
import { Initiator } from '../activities/initiator';

export function probeView(p: QueueProbeEntity) {
  return {
    id: p.id,
    requestedAt: p.requestedAt.toISOString(),
    requestedBy: p.requestedBy,
    processedAt: p.processedAt?.toISOString() ?? null,
    processedBy: p.processedBy,
    status: p.processedAt ? 'Processed' : 'Queued',
  };
}

/** Queue probes: prove the web → Redis → worker → PostgreSQL path on a running deployment. */
@Injectable()
export class QueueProbesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly jobs: JobQueue,
  ) {}

  async start(initiator: Initiator) {
    const probe = await this.ds.getRepository(QueueProbeEntity).save({ requestedBy: initiator.name });
    try {
      await this.jobs.enqueue(JobName.Noop, { probeId: probe.id });
    } catch {
      // A probe that can never be processed would read "Queued" forever.
      await this.ds
        .getRepository(QueueProbeEntity)
        .delete({ id: probe.id })
        .catch(() => undefined);
      throw new DependencyUnavailableError(
        Dependency.Queue,
        'The job queue (Redis) is unavailable; the probe was not queued. Try again later.',
      );
    }
    return probeView(probe);
  }

  async get(id: string) {
    const probe = await this.ds.getRepository(QueueProbeEntity).findOneBy({ id });
    if (!probe) throw DomainError.notFound('Queue probe', id);
    return probeView(probe);
  }

  /** Worker side: marks the probe processed (idempotent). */
  async complete(id: string, worker: string): Promise<boolean> {
    return new QueueProbeStore(this.ds).complete(id, worker);
  }
}
