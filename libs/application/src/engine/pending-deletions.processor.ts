import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityStatus, ActivityTargetType, InitiatedByType, RunType } from '@meridian/domain';
import { ActivityEntity, BulkSession, metaverseLockKey, RunLockStore, RunStore, SyncStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { SettingsService } from '../settings/settings.service';
import { RunContext } from './run-context';
import { SyncConfiguration } from './sync-configuration';
import { SyncPage } from './sync-page';

/** Objects deleted per transaction. */
export const PENDING_DELETION_BATCH_SIZE = 500;

/**
 * Deletes metaverse objects whose deletion grace period has passed (DOMAIN.md §2.4), in batches, under the
 * metaverse lock (it writes the metaverse like a synchronisation). Each pass that deletes anything is
 * recorded as an activity; a pass that finds nothing records nothing.
 */
@Injectable()
export class PendingDeletionsProcessor {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly settings: SettingsService,
  ) {}

  async deleteExpired(): Promise<number> {
    return BulkSession.with(this.ds, async (session) => {
      const store = new SyncStore(session);
      const first = await store.expiredPendingDeletions(PENDING_DELETION_BATCH_SIZE);
      if (!first.length) return 0;
      const activity = await this.ds.getRepository(ActivityEntity).save({
        status: ActivityStatus.InProgress,
        targetType: ActivityTargetType.MetaverseObject,
        targetOperationType: ActivityOperationType.Delete,
        targetName: 'Pending deletions',
        message: 'Deleting metaverse objects whose deletion grace period has passed.',
        initiatedByType: InitiatedByType.System,
        initiatedByName: 'Housekeeping',
        executed: new Date(),
        claimedAt: new Date(),
        heartbeatAt: new Date(),
      });
      const runs = new RunStore(session);
      const lock = await new RunLockStore(session).acquire(activity.id, [metaverseLockKey]);
      if (!lock.acquired) {
        // A synchronisation is writing the metaverse: try again at the next housekeeping.
        await this.ds.getRepository(ActivityEntity).delete({ id: activity.id });
        return 0;
      }
      const ctx = new RunContext(
        {
          activityId: activity.id,
          connectedSystemId: 0,
          connectedSystemName: '',
          runType: RunType.FullSynchronisation,
          pageSize: PENDING_DELETION_BATCH_SIZE,
          filePath: null,
          history: {
            ...(await this.settings.changeTracking()),
            origin: {
              activityId: activity.id,
              runProfileId: null,
              initiatedByType: InitiatedByType.System,
              initiatedById: null,
              initiatedByName: 'Housekeeping',
            },
          },
        },
        session,
      );
      let deleted = 0;
      try {
        const cfg = await SyncConfiguration.load(this.ds.manager);
        let batch = first;
        while (batch.length) {
          deleted += await session.transaction(() =>
            new SyncPage(cfg, store, ctx, 0, new Date(), false, false).deleteMetaverseObjects(batch),
          );
          await ctx.pageDone(batch.length);
          batch = await store.expiredPendingDeletions(PENDING_DELETION_BATCH_SIZE);
        }
        await runs.finish(
          activity.id,
          {
            status: ctx.outcomeStatus(),
            objectsProcessed: deleted,
            objectsToProcess: deleted,
            counters: ctx.counters,
            message: `${deleted} metaverse object(s) deleted after their deletion grace period; ${ctx.counters.totalPendingExports} pending export(s) staged.`,
          },
          () => ctx.flushItems(),
        );
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        this.logger.log({
          level: 'error',
          message: `Deleting expired pending deletions failed: ${reason}`,
          activityId: activity.id,
          error: e,
        });
        await runs.finish(activity.id, {
          status: ActivityStatus.FailedWithError,
          objectsProcessed: deleted,
          counters: ctx.counters,
          message: `Failed: ${reason}`,
          errorMessage: reason,
        });
      }
      return deleted;
    });
  }
}
