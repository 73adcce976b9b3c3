import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityStatus, ActivityTargetType, InitiatedByType, parseTimeSpan, SettingKeys } from '@meridian/domain';
import { ActivityEntity, BulkSession, ChangeRecordTable, DeletedSpan, HistoryCleanupStore, uuidV7LowerBound } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { Initiator } from '../activities/initiator';
import { SettingsService } from '../settings/settings.service';

/** The cleanup result (spec 2.13). */
export interface HistoryCleanupResult {
  csoChangesDeleted: number;
  mvoChangesDeleted: number;
  activitiesDeleted: number;
  /** Change time (or activity creation time) of the oldest and newest record deleted; null when nothing was. */
  oldestRecordDeleted: string | null;
  newestRecordDeleted: string | null;
  cutoffDate: string;
  retentionPeriodDays: number;
  /** Maximum records deleted per record type in one batch (History.CleanupBatchSize). */
  batchSize: number;
}

/** Who the daily cleanup is attributed to. */
export const HOUSEKEEPING_INITIATOR: Initiator = { type: InitiatedByType.System, id: null, name: 'Housekeeping' };

const DAY_MS = 86_400_000;
const DEFAULT_RETENTION_MS = 90 * DAY_MS;
/** Execution items deleted per statement before their activities go (a run can have a million). */
const EXECUTION_ITEM_CHUNK = 10_000;
/** How often a cleanup waiting for another one tries the lock again. */
const LOCK_RETRY_MS = 250;
/** Heartbeat of the cleanup's activity, at most this often (the stale-run reaper ends one that stops beating). */
const HEARTBEAT_MS = 10_000;

/** Oldest and newest over several deletes. */
class TimeRange {
  oldest: Date | null = null;
  newest: Date | null = null;

  add(s: DeletedSpan): void {
    if (s.oldest && (!this.oldest || s.oldest < this.oldest)) this.oldest = s.oldest;
    if (s.newest && (!this.newest || s.newest > this.newest)) this.newest = s.newest;
  }
}

/**
 * History retention (spec 2.13, 4.10): deletes change records and finished activities older than
 * History.RetentionPeriod, oldest first, in batches of History.CleanupBatchSize per record type, each batch
 * its own short statement so runs and the API keep working. Cleanups are serialised across processes;
 * each is recorded as an activity naming who purged what. Also deletes a connected system's change history
 * when the system is deleted with it.
 */
@Injectable()
export class HistoryCleanupService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly settings: SettingsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async cleanup(initiator: Initiator): Promise<HistoryCleanupResult> {
    const started = new Date();
    // InProgress, so no cleanup (this one or another) deletes it; it ends with the counts. Claimed and
    // heart-beating like a run, so a process that dies mid-way leaves it for the stale-run reaper to end.
    const activity = await this.ds.getRepository(ActivityEntity).save({
      claimedAt: started,
      claimedBy: `${hostname()}:${process.pid}`,
      heartbeatAt: started,
      status: ActivityStatus.InProgress,
      targetType: ActivityTargetType.HistoryRetentionCleanup,
      targetOperationType: ActivityOperationType.Delete,
      targetName: 'History retention',
      message: 'History cleanup started.',
      executed: started,
      initiatedByType: initiator.type,
      initiatedById: initiator.id,
      initiatedByName: initiator.name,
    });
    try {
      const beat = this.heartbeat(activity.id);
      const result = await BulkSession.with(this.ds, (s) => this.purge(new HistoryCleanupStore(s), beat));
      const message =
        `History cleanup deleted ${result.csoChangesDeleted} connected system object change(s), ${result.mvoChangesDeleted} metaverse object change(s) ` +
        `and ${result.activitiesDeleted} activit${result.activitiesDeleted === 1 ? 'y' : 'ies'} older than ${result.cutoffDate} ` +
        `(retention ${result.retentionPeriodDays} day(s)).`;
      const completed = new Date();
      const deleted = result.csoChangesDeleted + result.mvoChangesDeleted + result.activitiesDeleted;
      await this.ds.getRepository(ActivityEntity).save({
        ...activity,
        status: ActivityStatus.Complete,
        completed,
        heartbeatAt: completed,
        executionTimeMs: completed.getTime() - started.getTime(),
        message,
        objectsToProcess: deleted,
        objectsProcessed: deleted,
        totalDeleted: deleted,
        details: { ...result },
      });
      this.logger.log({ level: 'information', message, activityId: activity.id });
      return result;
    } catch (e) {
      await this.ds.getRepository(ActivityEntity).update(
        { id: activity.id },
        {
          status: ActivityStatus.FailedWithError,
          completed: new Date(),
          errorMessage: `History cleanup failed: ${e instanceof Error ? e.message : String(e)}`,
        },
      );
      throw e;
    }
  }

  /**
   * Deletes the change records of a connected system's objects (a system deleted with its history), in
   * batches of History.CleanupBatchSize; answers how many.
   */
  async deleteConnectedSystemChanges(systemId: number): Promise<number> {
    const batchSize = await this.batchSize();
    return BulkSession.with(this.ds, async (s) => {
      const store = new HistoryCleanupStore(s);
      let after: { objectId: string; id: string } | null = null;
      let total = 0;
      for (;;) {
        const batch = await store.deleteSystemChangeBatch(systemId, after, batchSize);
        if (!batch.deleted) return total;
        total += batch.deleted;
        after = batch.after;
      }
    });
  }

  private async purge(store: HistoryCleanupStore, beat: () => Promise<void>): Promise<HistoryCleanupResult> {
    while (!(await store.tryLock())) {
      await beat();
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
    try {
      // Read under the lock: a cleanup that waited uses the settings and the time it actually runs with.
      const retentionMs = parseTimeSpan(String(await this.settings.effective(SettingKeys.HistoryRetentionPeriod))) ?? DEFAULT_RETENTION_MS;
      const batchSize = await this.batchSize();
      const cutoff = new Date(Date.now() - retentionMs);
      const range = new TimeRange();
      const csoChangesDeleted = await this.purgeChanges(store, ChangeRecordTable.Cso, cutoff, batchSize, range, beat);
      const mvoChangesDeleted = await this.purgeChanges(store, ChangeRecordTable.Mvo, cutoff, batchSize, range, beat);
      const activitiesDeleted = await this.purgeActivities(store, cutoff, batchSize, range, beat);
      return {
        csoChangesDeleted,
        mvoChangesDeleted,
        activitiesDeleted,
        oldestRecordDeleted: range.oldest?.toISOString() ?? null,
        newestRecordDeleted: range.newest?.toISOString() ?? null,
        cutoffDate: cutoff.toISOString(),
        retentionPeriodDays: Math.floor(retentionMs / DAY_MS),
        batchSize,
      };
    } finally {
      await store.unlock();
    }
  }

  /** Walks the primary key below the cutoff's UUID v7 bound, continuing after the last id deleted. */
  private async purgeChanges(
    store: HistoryCleanupStore,
    table: ChangeRecordTable,
    cutoff: Date,
    batchSize: number,
    range: TimeRange,
    beat: () => Promise<void>,
  ): Promise<number> {
    const bound = uuidV7LowerBound(cutoff.getTime());
    let after: string | null = null;
    let total = 0;
    for (;;) {
      const batch = await store.deleteChangeBatch(table, bound, after, batchSize);
      if (!batch.deleted) return total;
      total += batch.deleted;
      range.add(batch);
      after = batch.last;
      await beat();
    }
  }

  /**
   * Deletes expired activities a batch at a time: the batch's execution items in bounded chunks, then the
   * activities. A parent becomes eligible once its children are gone, so this runs until a batch finds none.
   */
  private async purgeActivities(
    store: HistoryCleanupStore,
    cutoff: Date,
    batchSize: number,
    range: TimeRange,
    beat: () => Promise<void>,
  ): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = await store.expiredActivities(cutoff, batchSize);
      if (!ids.length) return total;
      while ((await store.deleteExecutionItemChunk(ids, EXECUTION_ITEM_CHUNK)) > 0) await beat();
      const batch = await store.deleteActivities(ids);
      // Nothing deletable among what was picked (e.g. a child was linked meanwhile): stop rather than spin.
      if (!batch.deleted) return total;
      total += batch.deleted;
      range.add(batch);
      await beat();
    }
  }

  /** Writes the activity's heartbeat, at most every HEARTBEAT_MS. */
  private heartbeat(activityId: string): () => Promise<void> {
    let last = Date.now();
    return async () => {
      if (Date.now() - last < HEARTBEAT_MS) return;
      last = Date.now();
      await this.ds.getRepository(ActivityEntity).update({ id: activityId }, { heartbeatAt: new Date(last) });
    };
  }

  private async batchSize(): Promise<number> {
    const value = await this.settings.effective(SettingKeys.HistoryCleanupBatchSize);
    return typeof value === 'number' && value > 0 ? value : 1000;
  }
}
