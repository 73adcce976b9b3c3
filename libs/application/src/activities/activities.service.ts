import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityStatus, ActivityTargetType, DomainError, ValidationErrorCollector } from '@meridian/domain';
import { ActivityEntity, ActivityExecutionItemEntity } from '@meridian/persistence';
import { PagedResult, pageOf, parsePaging } from '@meridian/platform';
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

export interface ActivityListQuery {
  page?: unknown;
  pageSize?: unknown;
  search?: unknown;
  sortBy?: unknown;
  sortDirection?: unknown;
}

/**
 * What can be cancelled: run-profile activities, whose runners look at the flag at every page boundary.
 * A connected-system deletion job is not (yet): it stops on the flag but leaves its activity InProgress.
 */
const CANCELLABLE_TARGET_TYPES: readonly ActivityTargetType[] = [ActivityTargetType.ConnectedSystemRunProfile];
const CANCELLED_BEFORE_START = 'Cancelled before it started.';

const SORT_COLUMNS: Record<string, string> = {
  created: 'a.created',
  executed: 'a.executed',
  status: 'a.status',
  type: 'a.target_type',
  target: 'a.target_name',
};

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
    const paging = parsePaging(query, { pageSize: 25, maxPageSize: 100 });
    const errors = new ValidationErrorCollector();
    const sortBy = query.sortBy === undefined ? 'created' : String(query.sortBy);
    const direction = query.sortDirection === undefined ? 'asc' : String(query.sortDirection).toLowerCase();
    if (!SORT_COLUMNS[sortBy]) errors.add('sortBy', `sortBy must be one of ${Object.keys(SORT_COLUMNS).join(', ')}.`);
    if (direction !== 'asc' && direction !== 'desc') errors.add('sortDirection', 'sortDirection must be asc or desc.');
    if (query.search !== undefined && (typeof query.search !== 'string' || query.search.length > 200))
      errors.add('search', 'search must be text of at most 200 characters.');
    errors.throwIfAny();

    const params: unknown[] = [];
    let where = '';
    if (typeof query.search === 'string' && query.search.trim()) {
      params.push(`%${query.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where = `WHERE a.target_name ILIKE $1 OR a.target_type ILIKE $1 OR a.target_operation_type ILIKE $1`;
    }
    const order = `${SORT_COLUMNS[sortBy]} ${direction.toUpperCase()} NULLS LAST, a.id ${direction.toUpperCase()}`;
    const [{ count }] = await this.ds.query(`SELECT count(*)::int AS count FROM activity a ${where}`, params);
    const ids: Array<{ id: string }> = await this.ds.query(
      `SELECT a.id FROM activity a ${where} ORDER BY ${order} LIMIT ${paging.pageSize} OFFSET ${paging.offset}`,
      params,
    );
    const rows = ids.length ? await this.ds.getRepository(ActivityEntity).findBy({ id: In(ids.map((r) => r.id)) }) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const children = await this.childCounts(ids.map((r) => r.id));
    const items = ids
      .map((r) => byId.get(r.id)!)
      .filter(Boolean)
      .map((a) => activitySummary(a, children.get(a.id) ?? 0));
    return pageOf(items, count, paging);
  }

  async get(id: string) {
    const a = await this.require(id);
    const children = await this.childCounts([id]);
    return activityDetail(a, children.get(id) ?? 0);
  }

  async items(id: string, query: { page?: unknown; pageSize?: unknown }) {
    const paging = parsePaging(query, { pageSize: 25, maxPageSize: 100 });
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
    const [updated]: [Array<{ id: string }>, number] = await this.ds.query(
      `UPDATE activity SET cancel_requested = true,
              status = CASE WHEN claimed_at IS NULL THEN $3 ELSE status END,
              completed = CASE WHEN claimed_at IS NULL THEN now() ELSE completed END,
              message = CASE WHEN claimed_at IS NULL THEN $4 ELSE message END
        WHERE id = $1 AND status = $2 AND target_type = ANY($5::text[])
        RETURNING id`,
      [id, ActivityStatus.InProgress, ActivityStatus.Cancelled, CANCELLED_BEFORE_START, CANCELLABLE_TARGET_TYPES],
    );
    if (!updated.length) {
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
    const counts = await this.childCounts(rows.map((r) => r.id));
    return rows.map((r) => activitySummary(r, counts.get(r.id) ?? 0));
  }

  private async require(id: string): Promise<ActivityEntity> {
    const a = await this.ds.getRepository(ActivityEntity).findOneBy({ id });
    if (!a) throw DomainError.notFound('Activity', id);
    return a;
  }

  private async childCounts(ids: string[]): Promise<Map<string, number>> {
    if (!ids.length) return new Map();
    const rows: Array<{ parent: string; count: number }> = await this.ds.query(
      `SELECT parent_activity_id AS parent, count(*)::int AS count FROM activity WHERE parent_activity_id = ANY($1::uuid[]) GROUP BY parent_activity_id`,
      [ids],
    );
    return new Map(rows.map((r) => [r.parent, r.count]));
  }
}
