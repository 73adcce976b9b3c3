import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  canonicalCronExpression,
  DEFAULT_SCHEDULE_TIME_ZONE,
  DomainError,
  maskConnectionString,
  nextRunTime,
  normaliseSchedulePattern,
  restoreMaskedSecrets,
  ScheduleIntervalUnit,
  SchedulePattern,
  SchedulePatternType,
  ScheduleStepDraft,
  ScheduleTriggerType,
  SECRET_MASK,
  validateSchedulePattern,
  validateScheduleSteps,
  ValidationErrorCollector,
} from '@meridian/domain';
import { ScheduleEntity, ScheduleExecutionStore, ScheduleStatsRow, ScheduleStepEntity, ScheduleStore } from '@meridian/persistence';
import { PagedResult, PageQuery, pageOf, pagingOf, SecretBox } from '@meridian/platform';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, In } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { isUniqueViolation } from '../connected-systems/connected-system.lookup';
import { ScheduleClock } from './schedule-clock';

/**
 * A create or partial update of a schedule, each field's type, length and allowed values already checked
 * by the caller; absent fields keep their value on update. Left here: the name once trimmed, what the
 * pattern and the steps mean (domain rules), and what needs the database.
 */
export interface ScheduleCommand {
  name?: string;
  description?: string | null;
  triggerType?: ScheduleTriggerType;
  patternType?: SchedulePatternType;
  daysOfWeek?: string | null;
  runTimes?: string | null;
  intervalValue?: number | null;
  intervalUnit?: ScheduleIntervalUnit | null;
  intervalWindowStart?: string | null;
  intervalWindowEnd?: string | null;
  cronExpression?: string | null;
  /** null keeps the stored zone (UTC on create). */
  timeZone?: string | null;
  isEnabled?: boolean;
  /** Each step is checked by validateScheduleSteps. */
  steps?: unknown[];
}

export const MAX_SCHEDULE_NAME_LENGTH = 200;
export const MAX_SCHEDULE_DESCRIPTION_LENGTH = 2000;
const NAME_CONSTRAINT = 'uq_schedule_name';
const PATTERN_FIELDS = [
  'triggerType',
  'patternType',
  'daysOfWeek',
  'runTimes',
  'intervalValue',
  'intervalUnit',
  'intervalWindowStart',
  'intervalWindowEnd',
  'cronExpression',
  'timeZone',
] as const;
const SCHEDULE_FIELDS = ['name', 'description', ...PATTERN_FIELDS, 'isEnabled', 'nextRunTime'] as const;
type StepValues = Omit<ScheduleStepDraft, 'position' | 'id'>;

/** Associated data a SqlScript step's connection string is sealed with: the sealed value opens only for its own step. */
export function scheduleStepSecretContext(stepId: string): string {
  return `schedule-step:${stepId}`;
}

/** The clear connection string of a step (for the step that runs it; never for responses or logs). */
export function openStepConnectionString(box: SecretBox, stepId: string, sealed: string): string {
  return box.open(sealed, scheduleStepSecretContext(stepId));
}

/** The pattern of a stored schedule (what nextRunTime and dueTimesBetween take). */
export function schedulePatternOf(s: ScheduleEntity): SchedulePattern {
  return {
    triggerType: s.triggerType as SchedulePattern['triggerType'],
    patternType: s.patternType as SchedulePattern['patternType'],
    daysOfWeek: s.daysOfWeek,
    runTimes: s.runTimes,
    intervalValue: s.intervalValue,
    intervalUnit: s.intervalUnit as SchedulePattern['intervalUnit'],
    intervalWindowStart: s.intervalWindowStart,
    intervalWindowEnd: s.intervalWindowEnd,
    cronExpression: s.cronExpression,
    timeZone: s.timeZone,
  };
}

function scheduleView(s: ScheduleEntity, stats: ScheduleStatsRow | undefined) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    triggerType: s.triggerType,
    cronExpression: s.cronExpression,
    patternType: s.patternType,
    daysOfWeek: s.daysOfWeek,
    runTimes: s.runTimes,
    intervalValue: s.intervalValue,
    intervalUnit: s.intervalUnit,
    intervalWindowStart: s.intervalWindowStart,
    intervalWindowEnd: s.intervalWindowEnd,
    timeZone: s.timeZone,
    isEnabled: s.isEnabled,
    lastRunTime: s.lastRunTime?.toISOString() ?? null,
    nextRunTime: s.nextRunTime?.toISOString() ?? null,
    stepCount: stats?.stepCount ?? 0,
    created: s.created.toISOString(),
    lastUpdated: s.lastUpdated?.toISOString() ?? null,
    lastExecutionId: stats?.lastExecutionId ?? null,
    lastExecutionStatus: stats?.lastExecutionStatus ?? null,
    lastExecutionCompletedAt: stats?.lastExecutionCompletedAt?.toISOString() ?? null,
  };
}
export type ScheduleView = ReturnType<typeof scheduleView>;
export type ScheduleStepView = ReturnType<SchedulesService['stepView']>;
export type ScheduleDetailView = ScheduleView & { steps: ScheduleStepView[] };

/** Schedules and their steps (spec 2.6, 2.7, 4.4); patterns and cron in @meridian/domain (docs/schedules.md). */
@Injectable()
export class SchedulesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly box: SecretBox,
    private readonly clock: ScheduleClock,
  ) {}

  async list(query: PageQuery): Promise<PagedResult<ScheduleView>> {
    const paging = pagingOf(query, 25);
    const store = new ScheduleStore(this.ds.manager);
    const count = await store.total();
    const ids = await store.pageIds(paging.pageSize, paging.offset);
    const rows = ids.length ? await this.ds.getRepository(ScheduleEntity).findBy({ id: In(ids) }) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const stats = await this.stats(this.ds.manager, ids);
    return pageOf(
      ids
        .map((id) => byId.get(id))
        .filter((s): s is ScheduleEntity => !!s)
        .map((s) => scheduleView(s, stats.get(s.id))),
      count,
      paging,
    );
  }

  async get(id: string): Promise<ScheduleDetailView> {
    return this.detail(this.ds.manager, await this.require(this.ds.manager, id, false));
  }

  async create(input: ScheduleCommand, initiator: Initiator): Promise<ScheduleDetailView> {
    return this.saving(() =>
      this.ds.transaction(async (m) => {
        const now = this.clock.now();
        const { fields, steps } = await this.validate(m, input, null);
        await this.assertNameFree(m, fields.name as string, null);
        const repo = m.getRepository(ScheduleEntity);
        const saved = await repo.save(
          repo.create({ ...fields, nextRunTime: this.nextRun(fields as ScheduleEntity, now), lastRunTime: null, lastUpdated: null }),
        );
        const stepChanges = await this.writeSteps(m, saved.id, steps!, []);
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.Schedule,
            operation: ActivityOperationType.Create,
            targetId: saved.id,
            targetName: saved.name,
            message: `Schedule "${saved.name}" created.`,
            details: {
              triggerType: saved.triggerType,
              patternType: saved.patternType,
              cronExpression: saved.cronExpression,
              timeZone: saved.timeZone,
              isEnabled: saved.isEnabled,
              nextRunTime: saved.nextRunTime?.toISOString() ?? null,
              stepCount: stepChanges.added,
            },
          },
          m,
        );
        return this.detail(m, saved);
      }),
    );
  }

  async update(id: string, input: ScheduleCommand, initiator: Initiator): Promise<ScheduleDetailView> {
    return this.saving(() =>
      this.ds.transaction(async (m) => {
        const schedule = await this.require(m, id, true);
        const existingSteps = await m.getRepository(ScheduleStepEntity).findBy({ scheduleId: id });
        const { fields, steps } = await this.validate(m, input, schedule, existingSteps);
        if (fields.name !== undefined && fields.name.toLowerCase() !== schedule.name.toLowerCase())
          await this.assertNameFree(m, fields.name, id);
        const merged = { ...schedule, ...fields } as ScheduleEntity;
        // Recomputed when what decides it changed, or when an enabled Cron schedule has none (the scheduler clears it for a pattern it cannot read).
        const stale = merged.isEnabled && merged.triggerType === 'Cron' && !schedule.nextRunTime;
        if (stale || PATTERN_FIELDS.some((f) => merged[f] !== schedule[f]) || merged.isEnabled !== schedule.isEnabled)
          merged.nextRunTime = this.nextRun(merged, this.clock.now());
        const changes = this.diff(schedule, merged);
        const stepChanges = steps ? await this.writeSteps(m, id, steps, existingSteps) : null;
        const stepsChanged = !!stepChanges && stepChanges.added + stepChanges.changed + stepChanges.removed > 0;
        if (!Object.keys(changes).length && !stepsChanged) return this.detail(m, schedule);
        merged.lastUpdated = new Date();
        await m.getRepository(ScheduleEntity).update({ id }, this.columns(merged));
        const changed = [...Object.keys(changes), ...(stepsChanged ? ['steps'] : [])];
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.Schedule,
            operation: ActivityOperationType.Update,
            targetId: id,
            targetName: merged.name,
            message: `Schedule "${merged.name}" updated (${changed.join(', ')}).`,
            details: { changes, ...(stepsChanged ? { steps: stepChanges } : {}) },
          },
          m,
        );
        return this.detail(m, merged);
      }),
    );
  }

  async setEnabled(id: string, enabled: boolean, initiator: Initiator): Promise<ScheduleDetailView> {
    return this.ds.transaction(async (m) => {
      const schedule = await this.require(m, id, true);
      if (schedule.isEnabled === enabled) return this.detail(m, schedule);
      const merged = { ...schedule, isEnabled: enabled, lastUpdated: new Date() } as ScheduleEntity;
      merged.nextRunTime = this.nextRun(merged, this.clock.now());
      await m
        .getRepository(ScheduleEntity)
        .update({ id }, { isEnabled: enabled, nextRunTime: merged.nextRunTime, lastUpdated: merged.lastUpdated });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.Schedule,
          operation: ActivityOperationType.Update,
          targetId: id,
          targetName: schedule.name,
          message: `Schedule "${schedule.name}" ${enabled ? 'enabled' : 'disabled'}.`,
          details: { changes: this.diff(schedule, merged) },
        },
        m,
      );
      return this.detail(m, merged);
    });
  }

  async remove(id: string, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const schedule = await this.require(m, id, true);
      const active = await new ScheduleExecutionStore(m).activeOf(id, 'newest first');
      if (active.length) {
        throw DomainError.conflict(
          `Schedule "${schedule.name}" has an execution that is ${active[0].status} (${active[0].id}); cancel it (POST /api/v1/schedule-executions/{id}/cancel) or let it finish, then delete the schedule.`,
          { executionIds: active.map((e) => e.id) },
        );
      }
      const { steps: stepCount, executions } = await new ScheduleStore(m).dependents(id);
      await m.getRepository(ScheduleEntity).delete({ id });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.Schedule,
          operation: ActivityOperationType.Delete,
          targetId: id,
          targetName: schedule.name,
          message: `Schedule "${schedule.name}" deleted.`,
          details: { triggerType: schedule.triggerType, stepCount, executionsDeleted: executions },
        },
        m,
      );
    });
  }

  /** A step as the API shows it: the connection string with its passwords masked. */
  stepView(s: ScheduleStepEntity) {
    return {
      id: s.id,
      stepIndex: s.stepIndex,
      name: s.name,
      executionMode: s.executionMode,
      stepType: s.stepType,
      continueOnFailure: s.continueOnFailure,
      timeoutSeconds: s.timeoutSeconds,
      connectedSystemId: s.connectedSystemId,
      runProfileId: s.runProfileId,
      scriptPath: s.scriptPath,
      arguments: s.arguments,
      executablePath: s.executablePath,
      workingDirectory: s.workingDirectory,
      sqlConnectionString: s.sqlConnectionString === null ? null : this.maskedSecret(s),
      sqlScriptPath: s.sqlScriptPath,
    };
  }

  private maskedSecret(s: ScheduleStepEntity): string {
    try {
      return maskConnectionString(openStepConnectionString(this.box, s.id, s.sqlConnectionString!));
    } catch {
      return SECRET_MASK; // sealed under another key: something is stored, nothing can be shown
    }
  }

  private async detail(m: EntityManager, s: ScheduleEntity): Promise<ScheduleDetailView> {
    const steps = await m
      .getRepository(ScheduleStepEntity)
      .find({ where: { scheduleId: s.id }, order: { stepIndex: 'ASC', created: 'ASC', id: 'ASC' } });
    const stats = await this.stats(m, [s.id]);
    return { ...scheduleView(s, stats.get(s.id)), steps: steps.map((st) => this.stepView(st)) };
  }

  /** Step counts and the latest execution (by queuedAt) of each schedule, in one statement. */
  private async stats(m: EntityManager, ids: string[]): Promise<Map<string, ScheduleStatsRow>> {
    return new Map((await new ScheduleStore(m).stats(ids)).map((r) => [r.id, r]));
  }

  private async require(m: EntityManager, id: string, forUpdate: boolean): Promise<ScheduleEntity> {
    const schedule = await m
      .getRepository(ScheduleEntity)
      .findOne({ where: { id }, ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!schedule) throw DomainError.notFound('Schedule', id);
    return schedule;
  }

  private async assertNameFree(m: EntityManager, name: string, exceptId: string | null): Promise<void> {
    const scheduleId = await new ScheduleStore(m).idByName(name, exceptId);
    if (scheduleId)
      throw DomainError.conflict(`A schedule named "${name}" already exists (names are unique, ignoring case).`, { scheduleId });
  }

  private async saving<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (isUniqueViolation(e, NAME_CONSTRAINT))
        throw DomainError.conflict('A schedule with that name already exists (names are unique, ignoring case).');
      throw e;
    }
  }

  /** Due time for a saved schedule: enabled Cron schedules only. */
  private nextRun(s: Pick<ScheduleEntity, 'isEnabled' | (typeof PATTERN_FIELDS)[number]>, now: Date): Date | null {
    return s.isEnabled && s.triggerType === 'Cron' ? nextRunTime(schedulePatternOf(s as ScheduleEntity), now) : null;
  }

  private columns(s: ScheduleEntity): Partial<ScheduleEntity> {
    return Object.fromEntries([...SCHEDULE_FIELDS, 'lastUpdated'].map((f) => [f, s[f as keyof ScheduleEntity]])) as Partial<ScheduleEntity>;
  }

  private diff(before: ScheduleEntity, after: ScheduleEntity): Record<string, { from: unknown; to: unknown }> {
    const out: Record<string, { from: unknown; to: unknown }> = {};
    const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : (v ?? null));
    for (const f of SCHEDULE_FIELDS) if (plain(before[f]) !== plain(after[f])) out[f] = { from: plain(before[f]), to: plain(after[f]) };
    return out;
  }

  /**
   * Checks a create (existing null) or partial update against the merged result: the trimmed name, the
   * pattern (domain rules), and the steps (domain rules) with their run profiles. All problems in one 400.
   */
  private async validate(
    m: EntityManager,
    input: ScheduleCommand,
    existing: ScheduleEntity | null,
    existingSteps: ScheduleStepEntity[] = [],
  ): Promise<{ fields: Partial<ScheduleEntity> & { name?: string }; steps: ScheduleStepDraft[] | null }> {
    const errors = new ValidationErrorCollector();
    const add = (field: string, message: string) => errors.add(field, message);
    const fields: Partial<ScheduleEntity> = {};

    if (input.name !== undefined || !existing) {
      const name = input.name?.trim() ?? '';
      if (!name || name.length > MAX_SCHEDULE_NAME_LENGTH)
        add('name', `name is required and must be 1-${MAX_SCHEDULE_NAME_LENGTH} characters.`);
      else fields.name = name;
    }
    if (input.description !== undefined) fields.description = input.description?.trim() ? input.description : null;
    if (input.isEnabled !== undefined) fields.isEnabled = input.isEnabled;
    else if (!existing) fields.isEnabled = false;
    if (!existing && input.triggerType === ScheduleTriggerType.Cron && input.patternType === undefined)
      add('patternType', 'patternType is required for Cron schedules: SpecificTimes, Interval or Custom.');

    const before = existing ? schedulePatternOf(existing) : { ...EMPTY_PATTERN };
    const pick = <K extends keyof SchedulePattern>(f: K): SchedulePattern[K] =>
      (input[f] !== undefined ? input[f] : before[f]) as SchedulePattern[K];
    const pattern: SchedulePattern = {
      triggerType: pick('triggerType'),
      patternType: pick('patternType') ?? SchedulePatternType.SpecificTimes,
      daysOfWeek: pick('daysOfWeek'),
      runTimes: pick('runTimes'),
      intervalValue: pick('intervalValue'),
      intervalUnit: pick('intervalUnit'),
      intervalWindowStart: pick('intervalWindowStart'),
      intervalWindowEnd: pick('intervalWindowEnd'),
      cronExpression: pick('cronExpression'),
      timeZone: input.timeZone ?? before.timeZone,
    };
    // cronExpression is read-only except for Custom: a generated one sent back (or sent at all) is ignored.
    if (pattern.patternType !== SchedulePatternType.Custom) pattern.cronExpression = null;
    for (const [field, messages] of Object.entries(validateSchedulePattern(pattern)))
      for (const message of messages) if (!errors.has(field)) add(field, message);

    let steps: ScheduleStepDraft[] | null = null;
    if (input.steps !== undefined || !existing) {
      // Absent on create: no steps (null is refused by the caller: on update "no steps" is []).
      const result = validateScheduleSteps(input.steps ?? []);
      for (const [field, messages] of Object.entries(result.errors)) for (const message of messages) add(field, message);
      if (!Object.keys(result.errors).length) steps = await this.checkSteps(m, result.steps, existingSteps, add);
    }
    errors.throwIfAny();

    const normal = normaliseSchedulePattern(pattern);
    Object.assign(fields, {
      ...normal,
      cronExpression: normal.patternType === 'Custom' ? normal.cronExpression : canonicalCronExpression(normal),
    });
    return { fields, steps };
  }

  /** Database checks of valid step drafts: ids of this schedule, run profiles of their systems, masked secrets; fills auto names. */
  private async checkSteps(
    m: EntityManager,
    drafts: ScheduleStepDraft[],
    existingSteps: ScheduleStepEntity[],
    add: (field: string, message: string) => void,
  ) {
    const existingById = new Map(existingSteps.map((s) => [s.id, s]));
    const systemIds = [...new Set(drafts.map((d) => d.connectedSystemId).filter((v): v is number => v !== null))];
    const profileIds = [...new Set(drafts.map((d) => d.runProfileId).filter((v): v is number => v !== null))];
    const store = new ScheduleStore(m);
    const systems = await store.connectedSystemNames(systemIds);
    const profiles = await store.runProfiles(profileIds);
    return drafts.map((d) => {
      const at = `steps[${d.position}]`;
      const stored = d.id ? existingById.get(d.id) : undefined;
      if (d.id && !stored) add(`${at}.id`, `${at}.id ${d.id} is not a step of this schedule; leave id out to add a new step.`);
      const step: ScheduleStepDraft = { ...d };
      if (d.stepType === 'RunProfile') {
        const system = systems.get(d.connectedSystemId!);
        const profile = profiles.get(d.runProfileId!);
        if (system === undefined)
          add(`${at}.connectedSystemId`, `${at}.connectedSystemId: connected system ${d.connectedSystemId} does not exist.`);
        else if (!profile) add(`${at}.runProfileId`, `${at}.runProfileId: run profile ${d.runProfileId} does not exist.`);
        else if (profile.connectedSystemId !== d.connectedSystemId) {
          add(
            `${at}.runProfileId`,
            `${at}.runProfileId: run profile ${d.runProfileId} belongs to connected system ${profile.connectedSystemId}, not ${d.connectedSystemId}.`,
          );
        } else step.name ??= `${system} — ${profile.name}`.slice(0, 300);
      }
      if (d.sqlConnectionString !== null) {
        let storedClear: string | null = null;
        if (stored?.sqlConnectionString) {
          try {
            storedClear = openStepConnectionString(this.box, stored.id, stored.sqlConnectionString);
          } catch {
            storedClear = null;
          }
        }
        const restored = restoreMaskedSecrets(d.sqlConnectionString, storedClear);
        if (restored.unresolved)
          add(
            `${at}.sqlConnectionString`,
            `${at}.sqlConnectionString carries the mask ${SECRET_MASK} where no password is stored to keep; send the password.`,
          );
        else step.sqlConnectionString = restored.value;
      }
      return step;
    });
  }

  /** Replaces the steps: sent ids are updated in place, others inserted, missing ones deleted. Secrets sealed per step id. */
  private async writeSteps(m: EntityManager, scheduleId: string, drafts: ScheduleStepDraft[], existing: ScheduleStepEntity[]) {
    const repo = m.getRepository(ScheduleStepEntity);
    const keep = new Set(drafts.map((d) => d.id).filter((id): id is string => !!id));
    const removed = existing.filter((s) => !keep.has(s.id));
    if (removed.length) await repo.delete({ id: In(removed.map((s) => s.id)) });
    let added = 0;
    let changed = 0;
    // New steps of one save get increasing creation times: within a step index they list in request order.
    const base = Date.now();
    for (const [i, d] of drafts.entries()) {
      const id = d.id ?? randomUUID();
      const before = existing.find((s) => s.id === id);
      const { position: _p, id: _i, sqlConnectionString, ...values } = d;
      const row: StepValues & { sqlConnectionString: string | null } = { ...values, sqlConnectionString };
      if (before) {
        const beforeClear = before.sqlConnectionString ? this.tryOpen(before) : null;
        const same =
          (Object.keys(values) as Array<keyof typeof values>).every((k) => before[k] === values[k]) && beforeClear === sqlConnectionString;
        if (same) continue;
        changed += 1;
        await repo.update(
          { id },
          {
            ...row,
            sqlConnectionString: sqlConnectionString === null ? null : this.box.seal(sqlConnectionString, scheduleStepSecretContext(id)),
          },
        );
      } else {
        added += 1;
        await repo.insert({
          ...row,
          id,
          scheduleId,
          created: new Date(base + i),
          sqlConnectionString: sqlConnectionString === null ? null : this.box.seal(sqlConnectionString, scheduleStepSecretContext(id)),
        });
      }
    }
    return { added, changed, removed: removed.length, unchanged: drafts.length - added - changed };
  }

  private tryOpen(s: ScheduleStepEntity): string | null {
    try {
      return openStepConnectionString(this.box, s.id, s.sqlConnectionString!);
    } catch {
      return null;
    }
  }
}

const EMPTY_PATTERN: SchedulePattern = {
  triggerType: undefined as never,
  patternType: 'SpecificTimes',
  daysOfWeek: null,
  runTimes: null,
  intervalValue: null,
  intervalUnit: null,
  intervalWindowStart: null,
  intervalWindowEnd: null,
  cronExpression: null,
  timeZone: DEFAULT_SCHEDULE_TIME_ZONE,
};
