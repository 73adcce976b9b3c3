import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityStatus, DomainError, parseRunType, RunType, SettingKeys } from '@meridian/domain';
import {
  ActivityStore,
  BulkSession,
  ConnectedSystemEntity,
  connectedSystemLockKey,
  metaverseLockKey,
  RunLockStore,
  RunStore,
  StatisticsStore,
} from '@meridian/persistence';
import { classifyDependencyError, DependencyOutages, failureSummary, Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { SettingsService } from '../settings/settings.service';
import { deletionActivityId } from '../connected-systems/connected-system.lookup';
import { RunCancelledError, RunContext } from './run-context';
import { ENGINE_RUNNERS, EngineRunner } from './engine-runner';

export type ExecuteOutcome = { state: 'done'; status: ActivityStatus } | { state: 'not-claimed' } | { state: 'waiting'; message: string };

const HEARTBEAT_INTERVAL_MS = 10_000;

/**
 * Runs one run-profile activity (ARCHITECTURE.md §2): takes the locks (the connected system's, and the
 * metaverse's for a synchronisation), claims the activity, heartbeats while the runner works, and ends
 * it with the right status. A run that cannot take its locks waits (the caller re-queues it).
 */
@Injectable()
export class RunProfileExecutor {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly settings: SettingsService,
    @Inject(ENGINE_RUNNERS) private readonly runners: EngineRunner[],
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(activityId: string, worker: string): Promise<ExecuteOutcome> {
    return BulkSession.with(this.ds, async (session) => {
      const runs = new RunStore(session);
      const activity = await runs.load(activityId);
      if (!activity || activity.status !== ActivityStatus.InProgress) return { state: 'not-claimed' };
      if (activity.claimedAt) return { state: 'not-claimed' };
      if (activity.cancelRequested) {
        await runs.refuse(activityId, ActivityStatus.Cancelled, 'Cancelled before it started.');
        return { state: 'done', status: ActivityStatus.Cancelled };
      }
      const runType = parseRunType(activity.runType);
      const system = activity.connectedSystemId
        ? await this.ds.getRepository(ConnectedSystemEntity).findOneBy({ id: activity.connectedSystemId })
        : null;
      if (!system || !runType || !activity.runProfileId) {
        await runs.refuse(activityId, ActivityStatus.FailedWithError, 'The run profile or its connected system no longer exists.');
        return { state: 'done', status: ActivityStatus.FailedWithError };
      }
      const deletion = await deletionActivityId(this.ds.manager, system.id);
      if (deletion) {
        await runs.refuse(
          activityId,
          ActivityStatus.FailedWithError,
          `Connected system "${system.name}" is being deleted (activity ${deletion}); the run did not start.`,
        );
        return { state: 'done', status: ActivityStatus.FailedWithError };
      }
      const keys = [connectedSystemLockKey(system.id)];
      if (runType === RunType.FullSynchronisation || runType === RunType.DeltaSynchronisation) keys.push(metaverseLockKey);
      const lock = await new RunLockStore(session).acquire(activityId, keys);
      if (!lock.acquired) {
        const holder = lock.holders[0];
        const what = holder?.lockKey === metaverseLockKey ? 'a synchronisation writing the metaverse' : `another run of "${system.name}"`;
        const message = `Waiting for ${what} to finish (activity ${holder?.activityId ?? 'unknown'}${holder?.targetName ? `, ${holder.targetName}` : ''}).`;
        await runs.setMessage(activityId, message);
        return { state: 'waiting', message };
      }
      if (!(await runs.claim(activityId, worker))) return { state: 'not-claimed' };
      const runner = this.runners.find((r) => r.runTypes.includes(runType));
      const pageSize = activity.pageSize ?? (Number(await this.settings.effective(SettingKeys.SyncPageSize)) || 1000);
      const ctx = new RunContext(
        {
          activityId,
          connectedSystemId: system.id,
          connectedSystemName: system.name,
          runType,
          pageSize,
          filePath: activity.filePath,
          history: {
            ...(await this.settings.changeTracking()),
            origin: {
              activityId,
              runProfileId: activity.runProfileId,
              initiatedByType: activity.initiatedByType,
              initiatedById: activity.initiatedById,
              initiatedByName: activity.initiatedByName,
            },
          },
        },
        session,
      );
      const heartbeat = setInterval(() => {
        new ActivityStore(this.ds).heartbeat(activityId).catch((e: Error) => {
          const dependency = classifyDependencyError(e);
          if (dependency) DependencyOutages.of(this.logger).unavailable(dependency, failureSummary(e), `heartbeat of run ${activityId}`);
          else this.logger.log({ level: 'warning', message: `Heartbeat of activity ${activityId} failed: ${e.message}` });
        });
      }, HEARTBEAT_INTERVAL_MS);
      heartbeat.unref();
      try {
        if (!runner) throw DomainError.badRequest(`No runner for ${runType}.`);
        // Statistics that earlier runs made stale (bulk writes) are refreshed before this run plans its pages.
        await ctx.phase('statistics', () => new StatisticsStore(session).refresh());
        const summary = await runner.run(ctx, system);
        const status = await runs.finish(
          activityId,
          {
            status: ctx.outcomeStatus(),
            objectsProcessed: ctx.processed,
            objectsToProcess: ctx.toProcess ?? ctx.processed,
            counters: ctx.counters,
            message: summary,
            warningMessage: ctx.warnings.join(' ') || null,
            executionStats: ctx.executionStats(),
          },
          () => ctx.flushItems(),
        );
        this.logger.log({
          level: 'information',
          message: `Run ${activityId} (${runType} of "${system.name}") ended ${status}: ${summary}`,
          activityId,
        });
        return { state: 'done', status };
      } catch (e) {
        const cancelled = e instanceof RunCancelledError;
        const reason = e instanceof Error ? e.message : String(e);
        const dependency = cancelled ? null : classifyDependencyError(e);
        if (dependency) {
          // An outage, not a fault of the run: the process logs it once (DependencyOutages), without a stack.
          DependencyOutages.of(this.logger).unavailable(dependency, failureSummary(e), `run ${activityId}`);
        } else if (!cancelled && !(e instanceof DomainError)) {
          this.logger.log({
            level: 'error',
            message: `Run ${activityId} (${runType} of "${system.name}") failed: ${reason}`,
            activityId,
            error: e,
          });
        }
        const status = await runs.finish(
          activityId,
          {
            status: cancelled ? ActivityStatus.Cancelled : ActivityStatus.FailedWithError,
            objectsProcessed: ctx.processed,
            objectsToProcess: ctx.toProcess ?? undefined,
            counters: ctx.counters,
            message: cancelled
              ? `Cancelled after ${ctx.processed} object(s); what was committed stays, the next run continues from it.`
              : `Failed: ${reason}`,
            warningMessage: ctx.warnings.join(' ') || null,
            errorMessage: cancelled ? null : reason,
            errorStackTrace: null,
            executionStats: ctx.executionStats(),
          },
          () => ctx.flushItems(),
        );
        return { state: 'done', status };
      } finally {
        clearInterval(heartbeat);
      }
    });
  }
}
