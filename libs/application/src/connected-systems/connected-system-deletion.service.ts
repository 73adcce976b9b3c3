import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityStatus,
  ActivityTargetType,
  ConnectedSystemDeletionOutcome,
  Dependency,
  DependencyUnavailableError,
  IMMEDIATE_DELETION_MAX_OBJECTS,
  parseTimeSpan,
  SettingKeys,
} from '@meridian/domain';
import { JobName, JobQueue } from '@meridian/jobs';
import { ActivityEntity, ConnectedSystemDeletionStore, ConnectedSystemEntity } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { HistoryCleanupService } from '../history/history-cleanup.service';
import { SettingsService } from '../settings/settings.service';
import { activeRunActivityIds, deletionActivityId, findSystem, recordSystemChange } from './connected-system.lookup';

export interface DeletionPreview {
  connectedSystemId: number;
  connectedSystemName: string;
  connectedSystemObjectCount: number;
  objectTypeCount: number;
  attributeCount: number;
  runProfileCount: number;
  syncRuleCount: number;
  /** Metaverse objects joined to a CSO of this system: they lose this connector. */
  joinedMetaverseObjectCount: number;
  /** Of those, the ones with no CSO in any other system afterwards (their deletion rules apply at the next synchronisation). */
  metaverseObjectsLeftWithoutConnectorsCount: number;
  /** Metaverse object types whose deletion rule names this system as a trigger (the id is removed from them). */
  deletionRuleObjectTypes: string[];
  /** Run-profile activities of this system still in progress. */
  activeRunActivityIds: string[];
  immediateDeletionMaxObjects: number;
  expectedOutcome: ConnectedSystemDeletionOutcome;
  runsInBackground: boolean;
  /** Set when a deletion is already queued. */
  deletionActivityId: string | null;
}

/** Spec 2.14. */
export interface DeletionResult {
  success: boolean;
  outcome: ConnectedSystemDeletionOutcome;
  errorMessage: string | null;
  workerTaskId: string | null;
  activityId: string | null;
}

export type DeletionRunState = 'completed' | 'waiting' | 'busy' | 'finished' | 'cancelled' | 'not-found';

export interface DeletionRunResult {
  state: DeletionRunState;
  deleted: number;
  reason?: string;
}

/** CSOs deleted per statement by the background deletion. */
export const DELETION_BATCH_SIZE = 5000;
const PROGRESS_INTERVAL_MS = 1000;

/**
 * Deleting a connected system (spec 2.14, 3.6): a preview, the request (immediately in one
 * transaction up to IMMEDIATE_DELETION_MAX_OBJECTS connector space objects, otherwise a background
 * job), and the job's batched, resumable work.
 */
@Injectable()
export class ConnectedSystemDeletionService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly settings: SettingsService,
    private readonly jobs: JobQueue,
    private readonly history: HistoryCleanupService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async preview(systemId: number): Promise<DeletionPreview> {
    const staleMs = await this.staleTimeoutMs();
    return this.ds.transaction('REPEATABLE READ', async (m) => this.buildPreview(m, await findSystem(m, systemId), staleMs));
  }

  /** Deletes now (200) or queues the deletion (202); an already queued deletion answers with its activity. */
  async requestDeletion(
    systemId: number,
    deleteChangeHistory: boolean,
    initiator: Initiator,
  ): Promise<{ status: 200 | 202; result: DeletionResult }> {
    const staleMs = await this.staleTimeoutMs();
    const decided = await this.ds.transaction(async (m) => {
      const system = await findSystem(m, systemId, 'update');
      const preview = await this.buildPreview(m, system, staleMs);
      if (preview.deletionActivityId) {
        const existing = await m.getRepository(ActivityEntity).findOneByOrFail({ id: preview.deletionActivityId });
        const outcome =
          (existing.details?.outcome as ConnectedSystemDeletionOutcome | undefined) ?? ConnectedSystemDeletionOutcome.QueuedAsBackgroundJob;
        return { queued: true as const, activityId: existing.id, outcome };
      }
      const { deletionActivityId: _ignored, expectedOutcome, ...counts } = preview;
      const details = { ...counts, deleteChangeHistory, outcome: expectedOutcome };
      if (expectedOutcome === ConnectedSystemDeletionOutcome.CompletedImmediately) {
        await this.deleteSystemRows(m, systemId);
        const activity = await recordSystemChange(
          this.activities,
          m,
          {
            initiator,
            targetType: ActivityTargetType.ConnectedSystem,
            operation: ActivityOperationType.Delete,
            targetId: systemId,
            targetName: system.name,
            message: `Connected system "${system.name}" deleted with ${counts.connectedSystemObjectCount} connector space object(s).`,
            details,
          },
          { connectedSystemId: systemId },
        );
        await m
          .getRepository(ActivityEntity)
          .update(
            { id: activity.id },
            { objectsToProcess: counts.connectedSystemObjectCount, objectsProcessed: counts.connectedSystemObjectCount },
          );
        return { queued: false as const, activityId: activity.id };
      }
      const activity = await m.getRepository(ActivityEntity).save({
        status: ActivityStatus.InProgress,
        targetType: ActivityTargetType.ConnectedSystem,
        targetOperationType: ActivityOperationType.Delete,
        targetId: String(systemId),
        targetName: system.name,
        message:
          expectedOutcome === ConnectedSystemDeletionOutcome.QueuedAfterSync
            ? `Deletion queued; it starts when the running run profile(s) of "${system.name}" finish.`
            : `Deletion of "${system.name}" queued as a background job.`,
        connectedSystemId: systemId,
        initiatedByType: initiator.type,
        initiatedById: initiator.id,
        initiatedByName: initiator.name,
        objectsToProcess: counts.connectedSystemObjectCount,
        objectsProcessed: 0,
        details,
      });
      return { queued: true as const, activityId: activity.id, outcome: expectedOutcome };
    });

    if (!decided.queued) {
      if (deleteChangeHistory) await this.deleteChangeHistory(systemId, decided.activityId);
      return {
        status: 200,
        result: {
          success: true,
          outcome: ConnectedSystemDeletionOutcome.CompletedImmediately,
          errorMessage: null,
          workerTaskId: null,
          activityId: decided.activityId,
        },
      };
    }
    try {
      // Deterministic job id: asking again for a queued deletion does not add a second job.
      await this.jobs.enqueue(JobName.DeleteConnectedSystem, { activityId: decided.activityId });
    } catch (e) {
      const reason = `The deletion could not be queued: ${e instanceof Error ? e.message : String(e)}`;
      await this.fail(decided.activityId, reason);
      const result: DeletionResult = {
        success: false,
        outcome: ConnectedSystemDeletionOutcome.Failed,
        errorMessage: reason,
        workerTaskId: null,
        activityId: decided.activityId,
      };
      throw new DependencyUnavailableError(
        Dependency.Queue,
        'The job queue (Redis) is unavailable; the connected system was not deleted. Try again later.',
        undefined,
        result,
      );
    }
    return {
      status: 202,
      result: {
        success: true,
        outcome: decided.outcome,
        errorMessage: null,
        workerTaskId: decided.activityId,
        activityId: decided.activityId,
      },
    };
  }

  /**
   * The background job: waits while a run of the system is active, claims the activity, deletes the
   * connector space in keyset batches (progress at most about once a second), then the system.
   * Safe to run again after a crash: it resumes with what is left.
   */
  async run(activityId: string, worker: string, options: { batchSize?: number; staleMs?: number } = {}): Promise<DeletionRunResult> {
    const batchSize = options.batchSize ?? DELETION_BATCH_SIZE;
    const staleMs = options.staleMs ?? (await this.staleTimeoutMs());
    const activity = await this.ds.getRepository(ActivityEntity).findOneBy({ id: activityId });
    if (
      !activity ||
      activity.targetType !== ActivityTargetType.ConnectedSystem ||
      activity.targetOperationType !== ActivityOperationType.Delete ||
      activity.connectedSystemId === null
    ) {
      return { state: 'not-found', deleted: 0, reason: `Activity ${activityId} is not a connected system deletion.` };
    }
    if (activity.status !== ActivityStatus.InProgress)
      return { state: 'finished', deleted: 0, reason: `Activity ${activityId} is ${activity.status}.` };
    const systemId = activity.connectedSystemId;
    const store = new ConnectedSystemDeletionStore(this.ds);

    const runs = await activeRunActivityIds(this.ds.manager, systemId, staleMs);
    if (runs.length) {
      const reason = `Waiting for run profile activity ${runs.join(', ')} of "${activity.targetName}" to finish.`;
      await store.say(activityId, reason);
      return { state: 'waiting', deleted: 0, reason };
    }

    // A worker that crashed mid-way stops heart-beating; after the stale timeout another may resume.
    const claimed = await store.claim(activityId, worker, `Deleting the connector space of "${activity.targetName}".`, staleMs);
    if (claimed === null) return { state: 'busy', deleted: 0, reason: `Activity ${activityId} is being processed by another worker.` };

    let processed = claimed;
    const remaining = await store.countObjects(systemId);
    await store.setObjectsToProcess(activityId, processed + remaining);

    let last = '00000000-0000-0000-0000-000000000000';
    let deleted = 0;
    let lastProgress = Date.now();
    for (;;) {
      const batch = await store.deleteObjectBatch(systemId, last, batchSize);
      if (!batch.deleted) break;
      deleted += batch.deleted;
      processed += batch.deleted;
      last = batch.last!;
      if (Date.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = Date.now();
        const state = await this.progress(activityId, processed);
        if (state !== ActivityStatus.InProgress)
          return { state: 'cancelled', deleted, reason: `Activity ${activityId} was ${state ?? 'cancelled'} while deleting.` };
      }
    }

    // Before the system goes: a retry after a crash here finds the activity still InProgress and deletes the rest.
    if (activity.details?.deleteChangeHistory === true) await this.history.deleteConnectedSystemChanges(systemId);

    const completed = await this.ds.transaction(async (m) => {
      const tx = new ConnectedSystemDeletionStore(m);
      const row = await tx.lockActivity(activityId);
      if (!row || row.status !== ActivityStatus.InProgress || row.cancelRequested) return false;
      const rest = await tx.countObjects(systemId);
      await this.deleteSystemRows(m, systemId);
      processed += rest;
      await tx.complete(
        activityId,
        processed,
        `Connected system "${activity.targetName}" deleted with ${processed} connector space object(s).`,
      );
      return true;
    });
    if (!completed) {
      await store.cancel(activityId);
      return { state: 'cancelled', deleted, reason: `Activity ${activityId} was cancelled.` };
    }
    this.logger.log({
      level: 'information',
      message: `Connected system ${systemId} deleted (${processed} connector space objects).`,
      activityId,
    });
    return { state: 'completed', deleted };
  }

  /**
   * After an immediate deletion has committed: the system's change records, in batches outside its
   * transaction. The system is gone either way, so a failure here is logged rather than undoing it.
   */
  private async deleteChangeHistory(systemId: number, activityId: string): Promise<void> {
    try {
      const deleted = await this.history.deleteConnectedSystemChanges(systemId);
      this.logger.log({
        level: 'information',
        message: `Deleted ${deleted} change record(s) of connected system ${systemId}.`,
        activityId,
      });
    } catch (e) {
      this.logger.log({
        level: 'error',
        message: `Connected system ${systemId} was deleted but its change history could not be: ${e instanceof Error ? e.message : String(e)}`,
        activityId,
        error: e,
      });
    }
  }

  /** Ends a deletion that cannot go on (last attempt failed, or it could not be queued); the system stays. */
  async fail(activityId: string, reason: string): Promise<void> {
    await new ConnectedSystemDeletionStore(this.ds).fail(activityId, reason);
  }

  /** Writes progress and the heartbeat; returns the activity status (a cancel request reads as Cancelled). */
  private async progress(activityId: string, processed: number): Promise<string | undefined> {
    const state = await new ConnectedSystemDeletionStore(this.ds).progress(activityId, processed);
    if (!state) return undefined;
    return state.cancelRequested ? ActivityStatus.Cancelled : state.status;
  }

  /**
   * Removes the system row; the foreign keys cascade to object types, attributes, run profiles, sync
   * rules (with mappings and matching rules) and any connector space objects left. Metaverse object
   * types stop naming the system as a deletion-rule trigger.
   */
  private async deleteSystemRows(m: EntityManager, systemId: number): Promise<void> {
    await new ConnectedSystemDeletionStore(m).forgetDeletionTrigger(systemId);
    await m.getRepository(ConnectedSystemEntity).delete({ id: systemId });
  }

  private async buildPreview(m: EntityManager, system: ConnectedSystemEntity, staleMs: number): Promise<DeletionPreview> {
    const id = system.id;
    const store = new ConnectedSystemDeletionStore(m);
    const counts = await store.counts(id);
    const triggers = await store.deletionTriggerTypeNames(id);
    const runs = await activeRunActivityIds(m, id, staleMs);
    const expectedOutcome = runs.length
      ? ConnectedSystemDeletionOutcome.QueuedAfterSync
      : counts.objects > IMMEDIATE_DELETION_MAX_OBJECTS
        ? ConnectedSystemDeletionOutcome.QueuedAsBackgroundJob
        : ConnectedSystemDeletionOutcome.CompletedImmediately;
    return {
      connectedSystemId: id,
      connectedSystemName: system.name,
      connectedSystemObjectCount: counts.objects,
      objectTypeCount: counts.types,
      attributeCount: counts.attributes,
      runProfileCount: counts.profiles,
      syncRuleCount: counts.rules,
      joinedMetaverseObjectCount: counts.joined,
      metaverseObjectsLeftWithoutConnectorsCount: counts.orphaned,
      deletionRuleObjectTypes: triggers,
      activeRunActivityIds: runs,
      immediateDeletionMaxObjects: IMMEDIATE_DELETION_MAX_OBJECTS,
      expectedOutcome,
      runsInBackground: expectedOutcome !== ConnectedSystemDeletionOutcome.CompletedImmediately,
      deletionActivityId: await deletionActivityId(m, id),
    };
  }

  private async staleTimeoutMs(): Promise<number> {
    const value = await this.settings.effective(SettingKeys.WorkerStaleTaskTimeout);
    return (typeof value === 'string' ? parseTimeSpan(value) : null) ?? 5 * 60_000;
  }
}
