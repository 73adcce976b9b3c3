import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityStatus,
  ActivityTargetType,
  ConnectedSystemDeletionOutcome,
  DomainError,
  ErrorCode,
  IMMEDIATE_DELETION_MAX_OBJECTS,
  parseTimeSpan,
  SettingKeys,
} from '@meridian/domain';
import { JobName, JobQueue } from '@meridian/jobs';
import { ActivityEntity, ConnectedSystemEntity } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { SettingsService } from '../settings/settings.service';
import { activeRunActivityIds, deletionActivityId, findSystem, recordSystemChange } from './connected-system.store';

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
      throw new DomainError(
        ErrorCode.ServiceUnavailable,
        'The job queue is unavailable; the connected system was not deleted. Try again later.',
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

    const runs = await activeRunActivityIds(this.ds.manager, systemId, staleMs);
    if (runs.length) {
      const reason = `Waiting for run profile activity ${runs.join(', ')} of "${activity.targetName}" to finish.`;
      await this.ds.query(`UPDATE activity SET message = $2 WHERE id = $1 AND status = $3`, [
        activityId,
        reason,
        ActivityStatus.InProgress,
      ]);
      return { state: 'waiting', deleted: 0, reason };
    }

    // A worker that crashed mid-way stops heart-beating; after the stale timeout another may resume.
    const [claimed]: [Array<{ objects_processed: number }>, number] = await this.ds.query(
      `UPDATE activity SET claimed_at = now(), claimed_by = $2, heartbeat_at = now(), executed = coalesce(executed, now()), message = $4
        WHERE id = $1 AND status = $3
          AND (claimed_at IS NULL OR claimed_by = $2 OR heartbeat_at IS NULL OR heartbeat_at < now() - ($5::bigint * interval '1 millisecond'))
        RETURNING objects_processed`,
      [activityId, worker, ActivityStatus.InProgress, `Deleting the connector space of "${activity.targetName}".`, staleMs],
    );
    if (!claimed.length) return { state: 'busy', deleted: 0, reason: `Activity ${activityId} is being processed by another worker.` };

    let processed = claimed[0].objects_processed;
    const [{ remaining }] = await this.ds.query(
      `SELECT count(*)::int AS remaining FROM connected_system_object WHERE connected_system_id = $1`,
      [systemId],
    );
    await this.ds.query(`UPDATE activity SET objects_to_process = $2 WHERE id = $1`, [activityId, processed + remaining]);

    let last = '00000000-0000-0000-0000-000000000000';
    let deleted = 0;
    let lastProgress = Date.now();
    for (;;) {
      const [batch]: Array<{ n: number; last: string | null }> = await this.ds.query(
        `WITH batch AS (
           SELECT id FROM connected_system_object WHERE connected_system_id = $1 AND id > $2::uuid ORDER BY id LIMIT $3
         ), gone AS (
           DELETE FROM connected_system_object c USING batch WHERE c.id = batch.id RETURNING c.id
         )
         SELECT count(*)::int AS n, max(id::text) AS last FROM gone`,
        [systemId, last, batchSize],
      );
      if (!batch.n) break;
      deleted += batch.n;
      processed += batch.n;
      last = batch.last!;
      if (Date.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = Date.now();
        const state = await this.progress(activityId, processed);
        if (state !== ActivityStatus.InProgress)
          return { state: 'cancelled', deleted, reason: `Activity ${activityId} was ${state ?? 'cancelled'} while deleting.` };
      }
    }

    const completed = await this.ds.transaction(async (m) => {
      const [row]: Array<{ status: string; cancel_requested: boolean }> = await m.query(
        `SELECT status, cancel_requested FROM activity WHERE id = $1 FOR UPDATE`,
        [activityId],
      );
      if (!row || row.status !== ActivityStatus.InProgress || row.cancel_requested) return false;
      const [{ rest }] = await m.query(`SELECT count(*)::int AS rest FROM connected_system_object WHERE connected_system_id = $1`, [
        systemId,
      ]);
      await this.deleteSystemRows(m, systemId);
      processed += rest;
      await m.query(
        `UPDATE activity SET status = $2, completed = now(), heartbeat_at = now(), objects_processed = $3, objects_to_process = greatest(objects_to_process, $3),
                execution_time_ms = (extract(epoch FROM (now() - coalesce(executed, created))) * 1000)::bigint, message = $4
          WHERE id = $1`,
        [
          activityId,
          ActivityStatus.Complete,
          processed,
          `Connected system "${activity.targetName}" deleted with ${processed} connector space object(s).`,
        ],
      );
      return true;
    });
    if (!completed) {
      await this.ds.query(`UPDATE activity SET status = $2, completed = coalesce(completed, now()) WHERE id = $1 AND status = $3`, [
        activityId,
        ActivityStatus.Cancelled,
        ActivityStatus.InProgress,
      ]);
      return { state: 'cancelled', deleted, reason: `Activity ${activityId} was cancelled.` };
    }
    this.logger.log({
      level: 'information',
      message: `Connected system ${systemId} deleted (${processed} connector space objects).`,
      activityId,
    });
    return { state: 'completed', deleted };
  }

  /** Ends a deletion that cannot go on (last attempt failed, or it could not be queued); the system stays. */
  async fail(activityId: string, reason: string): Promise<void> {
    await this.ds.query(
      `UPDATE activity SET status = $2, completed = now(), error_message = $3,
              execution_time_ms = CASE WHEN executed IS NULL THEN NULL ELSE (extract(epoch FROM (now() - executed)) * 1000)::bigint END
        WHERE id = $1 AND status = $4`,
      [activityId, ActivityStatus.FailedWithError, reason, ActivityStatus.InProgress],
    );
  }

  /** Writes progress and the heartbeat; returns the activity status (a cancel request reads as Cancelled). */
  private async progress(activityId: string, processed: number): Promise<string | undefined> {
    // An UPDATE through TypeORM answers [rows, affected].
    const [rows]: [Array<{ status: string; cancel_requested: boolean }>, number] = await this.ds.query(
      `UPDATE activity SET objects_processed = $2, heartbeat_at = now() WHERE id = $1 RETURNING status, cancel_requested`,
      [activityId, processed],
    );
    if (!rows[0]) return undefined;
    return rows[0].cancel_requested ? ActivityStatus.Cancelled : rows[0].status;
  }

  /**
   * Removes the system row; the foreign keys cascade to object types, attributes, run profiles, sync
   * rules (with mappings and matching rules) and any connector space objects left. Metaverse object
   * types stop naming the system as a deletion-rule trigger.
   */
  private async deleteSystemRows(m: EntityManager, systemId: number): Promise<void> {
    await m.query(
      `UPDATE metaverse_object_type SET deletion_trigger_connected_system_ids = array_remove(deletion_trigger_connected_system_ids, $1), last_updated = now()
        WHERE $1 = ANY(deletion_trigger_connected_system_ids)`,
      [systemId],
    );
    await m.getRepository(ConnectedSystemEntity).delete({ id: systemId });
  }

  private async buildPreview(m: EntityManager, system: ConnectedSystemEntity, staleMs: number): Promise<DeletionPreview> {
    const id = system.id;
    const [counts] = await m.query(
      `SELECT (SELECT count(*)::int FROM connected_system_object WHERE connected_system_id = $1) AS objects,
              (SELECT count(*)::int FROM connected_system_object_type WHERE connected_system_id = $1) AS types,
              (SELECT count(*)::int FROM connected_system_attribute a JOIN connected_system_object_type t ON t.id = a.object_type_id WHERE t.connected_system_id = $1) AS attributes,
              (SELECT count(*)::int FROM connected_system_run_profile WHERE connected_system_id = $1) AS profiles,
              (SELECT count(*)::int FROM sync_rule WHERE connected_system_id = $1) AS rules`,
      [id],
    );
    const [joins] = await m.query(
      `WITH joined AS (SELECT DISTINCT metaverse_object_id AS mvo FROM connected_system_object WHERE connected_system_id = $1 AND metaverse_object_id IS NOT NULL)
       SELECT count(*)::int AS joined,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM connected_system_object o WHERE o.metaverse_object_id = joined.mvo AND o.connected_system_id <> $1))::int AS orphaned
         FROM joined`,
      [id],
    );
    const triggers: Array<{ name: string }> = await m.query(
      `SELECT name FROM metaverse_object_type WHERE $1 = ANY(deletion_trigger_connected_system_ids) ORDER BY name`,
      [id],
    );
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
      joinedMetaverseObjectCount: joins.joined,
      metaverseObjectsLeftWithoutConnectorsCount: joins.orphaned,
      deletionRuleObjectTypes: triggers.map((t) => t.name),
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
