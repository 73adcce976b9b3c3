import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityStatus } from '@meridian/domain';
import { JobName, JobPayloads } from '@meridian/jobs';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { JobHandler } from './job-handler';

/**
 * Claims a run-profile activity and ends it. The synchronisation engine is not part of this release,
 * so the activity fails with a message that says so rather than pretending to run.
 */
@Injectable()
export class RunProfileHandler implements JobHandler<JobName.RunProfile> {
  readonly name = JobName.RunProfile;

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async handle(payload: JobPayloads[JobName.RunProfile]) {
    const worker = `${hostname()}:${process.pid}`;
    const [, claimed] = await this.ds.query(
      `UPDATE activity SET claimed_at = now(), claimed_by = $2, heartbeat_at = now(), executed = coalesce(executed, now())
        WHERE id = $1 AND claimed_at IS NULL AND status = $3`, [payload.activityId, worker, ActivityStatus.InProgress]);
    if (!claimed) return { claimed: false };
    await this.ds.query(
      `UPDATE activity SET status = $2, completed = now(), execution_time_ms = 0,
              error_message = 'Run profiles cannot execute yet: the synchronisation engine is not available in this version of Meridian.'
        WHERE id = $1 AND status <> $3`, [payload.activityId, ActivityStatus.FailedWithError, ActivityStatus.Cancelled]);
    return { claimed: true };
  }
}
