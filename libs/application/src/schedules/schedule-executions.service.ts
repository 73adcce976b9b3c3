import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ACTIVE_EXECUTION_STATUSES, ActivityOperationType, ActivityTargetType, DomainError, StepStatus } from '@meridian/domain';
import {
  ActivityEntity,
  ExecutionActivityStore,
  ScheduleExecutionEntity,
  ScheduleExecutionStepEntity,
  ScheduleExecutionStore,
  ScheduleStore,
} from '@meridian/persistence';
import { Logger, LOGGER, PagedResult, pageOf, pagingOf } from '@meridian/platform';
import { DataSource, EntityManager, In } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { ScheduleClock } from './schedule-clock';
import { insertExecution } from './queue-execution';
import { ExecutionSummaryView, executionStepView, executionSummary, ExecutionView } from './schedule-execution.views';

/** The fields an execution list can be sorted by. */
export const EXECUTION_SORT_FIELDS = ['queuedAt', 'startedAt', 'completedAt', 'status'] as const;
export type ExecutionSortField = (typeof EXECUTION_SORT_FIELDS)[number];

/** Query of the execution list, validated by the caller. */
export interface ExecutionListQuery {
  scheduleId?: string;
  page?: number;
  pageSize?: number;
  sortBy?: ExecutionSortField;
  sortDescending?: boolean;
}

export const EXECUTIONS_DEFAULT_PAGE_SIZE = 20;
export const EXECUTIONS_MAX_PAGE_SIZE = 100;

const SORT_COLUMNS: Record<ExecutionSortField, string> = {
  queuedAt: 'e.queuedAt',
  startedAt: 'e.startedAt',
  completedAt: 'e.completedAt',
  status: 'e.status',
};

/** Schedule executions (spec 2.8, 4.5): reading, manual runs and cancellation. The scheduler runs them. */
@Injectable()
export class ScheduleExecutionsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly clock: ScheduleClock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async list(query: ExecutionListQuery): Promise<PagedResult<ExecutionSummaryView>> {
    const paging = pagingOf(query, EXECUTIONS_DEFAULT_PAGE_SIZE);
    const sortBy = query.sortBy ?? 'queuedAt';
    const scheduleId = query.scheduleId ?? null;
    const direction = query.sortDescending === false ? 'ASC' : 'DESC';
    const qb = this.ds.getRepository(ScheduleExecutionEntity).createQueryBuilder('e');
    if (scheduleId) qb.where('e.scheduleId = :scheduleId', { scheduleId });
    qb.orderBy(SORT_COLUMNS[sortBy], direction, 'NULLS LAST')
      .addOrderBy('e.queuedAt', direction)
      .addOrderBy('e.id', direction)
      .skip(paging.offset)
      .take(paging.pageSize);
    const [rows, total] = await qb.getManyAndCount();
    return pageOf(rows.map(executionSummary), total, paging);
  }

  async get(id: string): Promise<ExecutionView> {
    const execution = await this.ds.getRepository(ScheduleExecutionEntity).findOneBy({ id });
    if (!execution) throw DomainError.notFound('Schedule execution', id);
    return this.view(this.ds.manager, execution);
  }

  /** Executions that are Queued, InProgress or Paused, oldest first. */
  async active(): Promise<ExecutionSummaryView[]> {
    const rows = await this.ds.getRepository(ScheduleExecutionEntity).find({
      where: { status: In([...ACTIVE_EXECUTION_STATUSES]) },
      order: { queuedAt: 'ASC', id: 'ASC' },
    });
    return rows.map(executionSummary);
  }

  /**
   * Runs a schedule now, whatever its trigger type, whether it is enabled and whether another execution
   * of it is active: a manual run always starts one (DOMAIN.md §5). Returns the Queued execution.
   */
  async startManual(scheduleId: string, initiator: Initiator): Promise<ExecutionView> {
    const now = this.clock.now();
    const id = await this.ds.transaction(async (m) => {
      const schedules = new ScheduleStore(m);
      const schedule = await schedules.lockForRun(scheduleId);
      if (!schedule) throw DomainError.notFound('Schedule', scheduleId);
      const executionId = (await insertExecution(m, schedule, { dueAt: null, initiator, queuedAt: now }))!;
      await schedules.setLastRunTime(scheduleId, now);
      return executionId;
    });
    this.logger.log({
      level: 'information',
      message: `Schedule ${scheduleId}: manual run queued as execution ${id} by ${initiator.name ?? initiator.type}.`,
      scheduleId,
      scheduleExecutionId: id,
    });
    return this.get(id);
  }

  /**
   * Cancels a Queued, InProgress or Paused execution: it is Cancelled at once (final — nothing
   * overwrites it), steps not yet running are Cancelled, running run-profile activities are asked to
   * cancel (and cancelled outright when no worker has claimed them yet). Processes and SQL scripts
   * running on the scheduler are stopped by the scheduler that runs them, which then marks their
   * steps Cancelled. Cancelling a finished execution is refused with 400.
   */
  async cancel(id: string, initiator: Initiator): Promise<ExecutionView> {
    const now = this.clock.now();
    const who = initiator.name ?? initiator.type;
    await this.ds.transaction(async (m) => {
      const execution = await m.getRepository(ScheduleExecutionEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!execution) throw DomainError.notFound('Schedule execution', id);
      if (!(ACTIVE_EXECUTION_STATUSES as readonly string[]).includes(execution.status)) {
        throw DomainError.badRequest(
          `Execution ${id} is already ${execution.status}; only Queued, InProgress or Paused executions can be cancelled.`,
          { status: execution.status },
        );
      }
      const message = `Cancelled by ${who}.`;
      const executions = new ScheduleExecutionStore(m);
      const activities = new ExecutionActivityStore(m);
      await executions.cancel(id, now, message);
      await activities.cancelRuns(await executions.runActivityIds(id, [StepStatus.Queued, StepStatus.Waiting]), now, message);
      // Steps not running on a scheduler process end now; running processes and SQL scripts are stopped by their scheduler.
      const idle = execution.claimedBy
        ? [StepStatus.Pending, StepStatus.Queued, StepStatus.Waiting]
        : [StepStatus.Pending, StepStatus.Queued, StepStatus.Waiting, StepStatus.Processing];
      await executions.cancelSteps(id, idle, now, 'Cancelled with the execution.');
      await activities.cancel(id, now, message);
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.ScheduleExecution,
          operation: ActivityOperationType.Cancel,
          targetId: id,
          targetName: execution.scheduleName,
          message: `Execution of schedule "${execution.scheduleName}" cancelled (it was ${execution.status}).`,
          details: { scheduleId: execution.scheduleId, previousStatus: execution.status },
        },
        m,
      );
    });
    this.logger.log({ level: 'information', message: `Schedule execution ${id} cancelled by ${who}.`, scheduleExecutionId: id });
    return this.get(id);
  }

  private async view(m: EntityManager, execution: ScheduleExecutionEntity): Promise<ExecutionView> {
    const steps = await m
      .getRepository(ScheduleExecutionStepEntity)
      .find({ where: { executionId: execution.id }, order: { stepIndex: 'ASC', name: 'ASC', id: 'ASC' } });
    const activityIds = steps.map((s) => s.activityId).filter((a): a is string => !!a);
    const activities = activityIds.length
      ? await m.getRepository(ActivityEntity).find({ where: { id: In(activityIds) }, select: { id: true, status: true } })
      : [];
    const statusOf = new Map(activities.map((a) => [a.id, a.status]));
    return {
      ...executionSummary(execution),
      steps: steps.map((s) => executionStepView(s, s.activityId ? (statusOf.get(s.activityId) ?? null) : null)),
    };
  }
}
