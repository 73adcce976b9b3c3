import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { JobName, JobQueue } from '@meridian/jobs';
import { ExecutionClaimStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { SCHEDULE_ENGINE_OPTIONS, ScheduleEngineOptions } from './schedule-engine.options';
import { SchedulerReplica } from './scheduler-replica';

/**
 * Claims of executions: the leader takes Queued executions nobody drives and executions whose scheduler
 * stopped heart-beating, every replica heart-beats what it drives, and finished executions abandoned
 * by a stopped scheduler are swept.
 */
@Injectable()
export class ExecutionClaimer {
  private readonly claims: ExecutionClaimStore;
  private lastSweep = 0;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly replica: SchedulerReplica,
    private readonly jobs: JobQueue,
    @Inject(SCHEDULE_ENGINE_OPTIONS) private readonly options: ScheduleEngineOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.claims = new ExecutionClaimStore(ds.manager);
  }

  /** Takes Queued executions nobody drives (not in maintenance mode), and executions whose scheduler stopped heart-beating. */
  async claim(now: Date, maintenance: boolean): Promise<void> {
    const staleBefore = new Date(now.getTime() - this.options.staleAfterMs);
    const requeue = await this.ds.transaction(async (m) => {
      const claims = new ExecutionClaimStore(m);
      const rows = await claims.lockClaimable(this.replica.instanceId, staleBefore, maintenance, this.options.claimBatchSize);
      if (!rows.length) return [];
      this.replica.claimedAny = true;
      const takenOver = rows.filter((r) => r.claimedBy);
      const takenOverIds = takenOver.map((r) => r.id);
      // The previous scheduler's processes and SQL scripts died with it (or are out of reach): their outcome is unknown.
      const failed = await claims.failInterruptedSteps(takenOverIds, now);
      const unclaimed = await claims.unclaimedRunActivityIds(takenOverIds);
      await claims.claim(
        rows.map((r) => r.id),
        this.replica.instanceId,
        now,
      );
      for (const row of takenOver) {
        const count = failed.get(row.id) ?? 0;
        this.logger.log({
          level: 'warning',
          message:
            `Took over schedule execution ${row.id} ("${row.scheduleName}", ${row.status}) from ${row.claimedBy}, whose heartbeat stopped` +
            `${count ? `; ${count} step(s) it was running failed as interrupted` : ''}.`,
          scheduleExecutionId: row.id,
        });
      }
      return unclaimed;
    });
    for (const activityId of requeue) {
      // Deterministic job ids make this a no-op when the job is still in the queue.
      await this.jobs
        .enqueue(JobName.RunProfile, { activityId })
        .catch((e: Error) =>
          this.logger.log({ level: 'warning', message: `Could not re-queue run-profile activity ${activityId}: ${e.message}`, activityId }),
        );
    }
  }

  /** Finished executions still claimed by a scheduler that stopped: their unfinished steps end, the claim goes (every sweep interval). */
  async sweepWhenDue(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < this.options.sweepIntervalMs) return;
    this.lastSweep = now.getTime();
    const staleBefore = new Date(now.getTime() - this.options.staleAfterMs);
    await this.claims.sweepAbandoned(this.replica.instanceId, staleBefore, now, this.options.claimBatchSize);
  }

  async heartbeat(executionIds: readonly string[], now: Date): Promise<void> {
    await this.claims.heartbeat(executionIds, this.replica.instanceId, now);
  }

  async release(executionId: string): Promise<void> {
    await this.claims.release(executionId, this.replica.instanceId);
  }

  /** Releases a finished execution once this replica runs nothing of it any more. */
  async releaseIfDone(executionId: string): Promise<void> {
    if (!this.replica.hasTasks(executionId)) await this.claims.releaseIfFinished(executionId, this.replica.instanceId);
  }

  async releaseAll(): Promise<void> {
    await this.claims.releaseAll(this.replica.instanceId);
  }
}
