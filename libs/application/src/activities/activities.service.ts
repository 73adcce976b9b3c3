import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityStatus, ActivityTargetType, DomainError, SortDirection } from '@meridian/domain';
import {
  ActivityEntity,
  ActivityExecutionItemEntity,
  ActivitySortKey,
  ActivityStore,
  SORTABLE_ACTIVITY_COLUMNS,
} from '@meridian/persistence';
import { PagedResult, pageOf, pagingOf } from '@meridian/platform';
import { DataSource, EntityManager, In } from 'typeorm';
import { activityDetail, activitySummary, executionItemView } from './activity.views';
import { Initiator } from './initiator';

export interface ConfigChange {
  initiator: Initiator;
  targetType: ActivityTargetType;
  operation: ActivityOperationType;
  targetId?: string | number | null;
  targetName?: string | null;
  targetContext?: string | null;
  message?: string | null;
  details?: Record<string, unknown> | null;
}

/** The orders GET /activities offers (sortBy). */
export const ACTIVITY_SORT_KEYS = Object.keys(SORTABLE_ACTIVITY_COLUMNS) as ActivitySortKey[];
export type { ActivitySortKey };

/** Query of GET /activities, as its DTO has validated it. */
export interface ActivityListQuery {
  page?: number;
  pageSize?: number;
  /** At most 200 characters. */
  search?: string;
  sortBy?: ActivitySortKey;
  sortDirection?: SortDirection;
}

/**
 * What can be cancelled: run-profile activities, whose runners look at the flag at every page boundary.
 * A connected-system deletion job is not (yet): it stops on the flag but leaves its activity InProgress.
 */
const CANCELLABLE_TARGET_TYPES: readonly ActivityTargetType[] = [ActivityTargetType.ConnectedSystemRunProfile];
const CANCELLED_BEFORE_START = 'Cancelled before it started.';

/** Records and reads activities (spec 2.4, 4.3). */
@Injectable()
export class ActivitiesService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Records a completed configuration change; pass the transaction's manager to commit both together. */
  async recordChange(change: ConfigChange, manager: EntityManager = this.ds.manager): Promise<ActivityEntity> {
    const now = new Date();
    return manager.getRepository(ActivityEntity).save({
      created: now,
      executed: now,
      completed: now,
      executionTimeMs: 0,
      status: ActivityStatus.Complete,
      targetType: change.targetType,
      targetOperationType: change.operation,
      targetId: change.targetId === undefined || change.targetId === null ? null : String(change.targetId),
      targetName: change.targetName ?? null,
      targetContext: change.targetContext ?? null,
      message: change.message ?? null,
      details: change.details ?? null,
      initiatedByType: change.initiator.type,
      initiatedById: change.initiator.id,
      initiatedByName: change.initiator.name,
    });
  }

  async list(query: ActivityListQuery): Promise<PagedResult<ReturnType<typeof activitySummary>>> {
    const paging = pagingOf(query, 25);
    const store = new ActivityStore(this.ds);
    const { ids, totalCount } = await store.page({
      search: query.search?.trim() || null,
      sortBy: query.sortBy ?? 'created',
      direction: query.sortDirection ?? 'asc',
      offset: paging.offset,
      pageSize: paging.pageSize,
    });
    const rows = ids.length ? await this.ds.getRepository(ActivityEntity).findBy({ id: In(ids) }) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const children = await store.childCounts(ids);
    const items = ids
      .map((id) => byId.get(id)!)
      .filter(Boolean)
      .map((a) => activitySummary(a, children.get(a.id) ?? 0));
    return pageOf(items, totalCount, paging);
  }

  async get(id: string) {
    const a = await this.require(id);
    const children = await new ActivityStore(this.ds).childCounts([id]);
    return activityDetail(a, children.get(id) ?? 0);
  }

  async items(id: string, query: Pick<ActivityListQuery, 'page' | 'pageSize'>) {
    const paging = pagingOf(query, 25);
    const a = await this.require(id);
    if (a.targetType !== ActivityTargetType.ConnectedSystemRunProfile) {
      throw DomainError.badRequest(`Activity ${id} is a ${a.targetType} activity; execution items exist only for run-profile activities.`);
    }
    const repo = this.ds.getRepository(ActivityExecutionItemEntity);
    const [rows, total] = await repo.findAndCount({
      where: { activityId: id },
      order: { seq: 'ASC' },
      skip: paging.offset,
      take: paging.pageSize,
    });
    return pageOf(rows.map(executionItemView), total, paging);
  }

  /**
   * Cancels a run-profile activity that is still InProgress, in one statement: it is flagged, and one
   * that no worker has claimed yet (still queued) is Cancelled at once so it never starts; a claimed one
   * stays InProgress until its runner sees the flag at its next page boundary and ends it Cancelled.
   */
  async cancel(id: string) {
    if (!(await new ActivityStore(this.ds).requestCancel(id, CANCELLABLE_TARGET_TYPES, CANCELLED_BEFORE_START))) {
      const a = await this.require(id);
      if (!CANCELLABLE_TARGET_TYPES.includes(a.targetType as ActivityTargetType)) {
        throw DomainError.badRequest(`Activity ${id} is a ${a.targetType} activity; only run-profile activities can be cancelled.`, {
          targetType: a.targetType,
        });
      }
      throw DomainError.badRequest(`Activity ${id} is already ${a.status}; only an InProgress activity can be cancelled.`, {
        status: a.status,
      });
    }
    return this.get(id);
  }

  async children(id: string) {
    await this.require(id);
    const rows = await this.ds.getRepository(ActivityEntity).find({ where: { parentActivityId: id }, order: { created: 'ASC' } });
    const counts = await new ActivityStore(this.ds).childCounts(rows.map((r) => r.id));
    return rows.map((r) => activitySummary(r, counts.get(r.id) ?? 0));
  }

  private async require(id: string): Promise<ActivityEntity> {
    const a = await this.ds.getRepository(ActivityEntity).findOneBy({ id });
    if (!a) throw DomainError.notFound('Activity', id);
    return a;
  }
}
