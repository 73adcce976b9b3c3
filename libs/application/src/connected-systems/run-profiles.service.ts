import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityStatus,
  ActivityTargetType,
  Dependency,
  DependencyUnavailableError,
  DomainError,
  requiredCapability,
  RunType,
  runTypeUsesConnector,
  SettingKeys,
  ValidationErrorCollector,
} from '@meridian/domain';
import { Connector, ConnectorRegistry } from '@meridian/connectors';
import { JobName, JobQueue } from '@meridian/jobs';
import { ActivityEntity, ConnectedSystemEntity, RunProfileEntity, ConnectedSystemStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { SettingsService } from '../settings/settings.service';
import { capabilitiesOf } from './connected-systems.service';
import { findSystem, findSystemForChange, isUniqueViolation, recordSystemChange } from './connected-system.lookup';
import { runProfileView, RunProfileView } from './connected-system.views';

/** A new run profile, its fields already of the right shape (the file path relative to the connector files root). */
export interface CreateRunProfileCommand {
  name: string;
  runType: RunType;
  /** Absent: the Sync.PageSize service setting. */
  pageSize?: number;
  /** Absent or null: no override. */
  filePath?: string | null;
}

/** A partial update: absent fields keep their value; filePath null removes the override. */
export type UpdateRunProfileCommand = Partial<CreateRunProfileCommand>;

/** A run whose activity is written (createRun) and whose job is not queued yet (queueRun). */
export interface CreatedRun {
  activityId: string;
  runProfileId: number;
}

export const MAX_RUN_PROFILE_PAGE_SIZE = 10_000;
const NAME_CONSTRAINT = 'uq_run_profile_name';

/** Whether a connector takes a file path (and so a run profile may override it). */
function takesFilePath(connector: Connector | undefined): boolean {
  return !!connector?.settings.some((s) => s.type === 'FilePath' || s.name === 'filePath');
}

/** Run profiles of a connected system, and starting them (ARCHITECTURE.md §2 job flow). */
@Injectable()
export class RunProfilesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly settings: SettingsService,
    private readonly registry: ConnectorRegistry,
    private readonly jobs: JobQueue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async list(systemId: number): Promise<RunProfileView[]> {
    await findSystem(this.ds.manager, systemId);
    const rows = await this.ds
      .getRepository(RunProfileEntity)
      .find({ where: { connectedSystemId: systemId }, order: { name: 'ASC', id: 'ASC' } });
    return rows.map(runProfileView);
  }

  async get(systemId: number, id: number): Promise<RunProfileView> {
    await findSystem(this.ds.manager, systemId);
    return runProfileView(await this.require(this.ds.manager, systemId, id));
  }

  async create(systemId: number, input: CreateRunProfileCommand, initiator: Initiator): Promise<RunProfileView> {
    const defaultPageSize = Number(await this.settings.effective(SettingKeys.SyncPageSize));
    return this.saving(() =>
      this.ds.transaction(async (m) => {
        const system = await findSystemForChange(m, systemId, 'share');
        const fields = this.validate(system, input, null);
        await this.assertNameFree(m, systemId, fields.name!, null);
        const repo = m.getRepository(RunProfileEntity);
        const saved = await repo.save(
          repo.create({
            connectedSystemId: systemId,
            name: fields.name!,
            runType: fields.runType!,
            pageSize: fields.pageSize ?? defaultPageSize,
            filePath: fields.filePath ?? null,
          }),
        );
        await recordSystemChange(
          this.activities,
          m,
          {
            initiator,
            targetType: ActivityTargetType.ConnectedSystemRunProfile,
            operation: ActivityOperationType.Create,
            targetId: saved.id,
            targetName: saved.name,
            targetContext: system.name,
            message: `Run profile "${saved.name}" (${saved.runType}) created.`,
            details: { runType: saved.runType, pageSize: saved.pageSize, filePath: saved.filePath },
          },
          { connectedSystemId: systemId, connectedSystemRunProfileId: saved.id },
        );
        return runProfileView(saved);
      }),
    );
  }

  async update(systemId: number, id: number, input: UpdateRunProfileCommand, initiator: Initiator): Promise<RunProfileView> {
    return this.saving(() =>
      this.ds.transaction(async (m) => {
        const system = await findSystemForChange(m, systemId, 'share');
        const profile = await this.require(m, systemId, id);
        const fields = this.validate(system, input, profile);
        const changes: Record<string, { from: unknown; to: unknown }> = {};
        for (const field of ['name', 'runType', 'pageSize', 'filePath'] as const) {
          const value = fields[field];
          if (value !== undefined && value !== profile[field]) {
            if (field === 'name') await this.assertNameFree(m, systemId, value as string, id);
            changes[field] = { from: profile[field], to: value };
            (profile as unknown as Record<string, unknown>)[field] = value;
          }
        }
        if (Object.keys(changes).length) {
          profile.lastUpdated = new Date();
          await m.getRepository(RunProfileEntity).save(profile);
          await recordSystemChange(
            this.activities,
            m,
            {
              initiator,
              targetType: ActivityTargetType.ConnectedSystemRunProfile,
              operation: ActivityOperationType.Update,
              targetId: id,
              targetName: profile.name,
              targetContext: system.name,
              message: `Run profile "${profile.name}" updated (${Object.keys(changes).join(', ')}).`,
              details: { changes },
            },
            { connectedSystemId: systemId, connectedSystemRunProfileId: id },
          );
        }
        return runProfileView(profile);
      }),
    );
  }

  async remove(systemId: number, id: number, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const system = await findSystemForChange(m, systemId, 'share');
      const profile = await this.require(m, systemId, id);
      const running = await new ConnectedSystemStore(m).runningActivityOfProfile(id);
      if (running)
        throw DomainError.conflict(`Run profile "${profile.name}" is running (activity ${running}); delete it when the run has finished.`, {
          activityId: running,
        });
      await m.getRepository(RunProfileEntity).delete({ id });
      await recordSystemChange(
        this.activities,
        m,
        {
          initiator,
          targetType: ActivityTargetType.ConnectedSystemRunProfile,
          operation: ActivityOperationType.Delete,
          targetId: id,
          targetName: profile.name,
          targetContext: system.name,
          message: `Run profile "${profile.name}" deleted.`,
          details: { runType: profile.runType },
        },
        { connectedSystemId: systemId, connectedSystemRunProfileId: id },
      );
    });
  }

  /**
   * Starts a run: an InProgress activity committed first, then the job that carries only its id.
   * If the queue cannot take the job, the activity is failed (not left InProgress) and the caller gets 503 (DependencyUnavailableError).
   */
  async execute(systemId: number, id: number, initiator: Initiator): Promise<{ activityId: string }> {
    const run = await this.ds.transaction((m) => this.createRun(m, systemId, id, initiator));
    await this.queueRun(run);
    return { activityId: run.activityId };
  }

  /**
   * The first half of a start: the run's InProgress activity, written in the caller's transaction (so the
   * caller can tie it to its own rows). Hand the answer to queueRun once that transaction has committed.
   */
  async createRun(m: EntityManager, systemId: number, id: number, initiator: Initiator): Promise<CreatedRun> {
    const system = await findSystemForChange(m, systemId, 'share');
    const profile = await this.require(m, systemId, id);
    this.assertRunnable(system, profile.runType as RunType, 'runType');
    const activity = await m.getRepository(ActivityEntity).save({
      status: ActivityStatus.InProgress,
      targetType: ActivityTargetType.ConnectedSystemRunProfile,
      targetOperationType: ActivityOperationType.Execute,
      targetId: String(profile.id),
      targetName: profile.name,
      targetContext: system.name,
      message: `Queued: ${profile.runType} of "${system.name}".`,
      connectedSystemId: systemId,
      connectedSystemRunProfileId: profile.id,
      connectedSystemRunType: profile.runType,
      initiatedByType: initiator.type,
      initiatedById: initiator.id,
      initiatedByName: initiator.name,
      objectsToProcess: 0,
      objectsProcessed: 0,
    });
    return { activityId: activity.id, runProfileId: profile.id };
  }

  /**
   * The second half of a start: the job of a committed run activity. If the queue cannot take it, the
   * activity is failed in one transaction with what `alsoOnFailure` writes (the caller's own record of
   * the failure), and a DependencyUnavailableError (503) is thrown.
   */
  async queueRun(
    { activityId, runProfileId }: CreatedRun,
    alsoOnFailure?: (m: EntityManager, reason: string) => Promise<void>,
  ): Promise<void> {
    try {
      await this.jobs.enqueue(JobName.RunProfile, { activityId });
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      await this.ds.transaction(async (m) => {
        await m
          .getRepository(ActivityEntity)
          .update(
            { id: activityId },
            { status: ActivityStatus.FailedWithError, completed: new Date(), errorMessage: `The run could not be queued: ${reason}` },
          );
        await alsoOnFailure?.(m, reason);
      });
      // The outage itself is logged once by whoever answers the request (DependencyOutages).
      this.logger.log({ level: 'debug', message: `Run profile ${runProfileId} could not be queued: ${reason}`, activityId });
      throw new DependencyUnavailableError(
        Dependency.Queue,
        'The job queue (Redis) is unavailable; the run was not started. Try again later.',
        undefined,
        { activityId },
      );
    }
  }

  /** The rules that need the system and its connector; the body has checked each field's shape. */
  private validate(system: ConnectedSystemEntity, input: UpdateRunProfileCommand, existing: RunProfileEntity | null) {
    const errors = new ValidationErrorCollector();
    const out: { name?: string; runType?: RunType; pageSize?: number; filePath?: string | null } = {
      name: input.name?.trim(),
      runType: input.runType,
      pageSize: input.pageSize,
    };
    const connector = this.registry.find(system.connectorType);
    if (input.filePath !== undefined && input.filePath !== null) {
      if (!takesFilePath(connector))
        errors.add(
          'filePath',
          `The ${system.connectorType} connector does not read or write files, so a run profile cannot override a file path.`,
        );
      else out.filePath = input.filePath.trim();
    } else if (input.filePath === null) out.filePath = null;
    const runType = out.runType ?? (existing?.runType as RunType | undefined);
    const filePath = out.filePath !== undefined ? out.filePath : existing?.filePath;
    if (runType && filePath && !runTypeUsesConnector(runType) && !errors.hasErrors) {
      errors.add(
        'filePath',
        `A ${runType} run does not read or write files (synchronisation works on the connector space); leave filePath empty.`,
      );
    }
    if (out.runType) {
      try {
        this.assertRunnable(system, out.runType, 'runType', connector);
      } catch (e) {
        if (!(e instanceof DomainError) || !e.validationErrors) throw e;
        errors.add('runType', e.message);
      }
    }
    errors.throwIfAny();
    return out;
  }

  /** Refuses run types the connector cannot do with the system's current settings (400 naming the field). */
  private assertRunnable(
    system: ConnectedSystemEntity,
    runType: RunType,
    field: string,
    connector = this.registry.find(system.connectorType),
  ): void {
    const needs = requiredCapability(runType);
    if (!needs) return;
    if (!connector)
      throw DomainError.validation(
        field,
        `The ${system.connectorType} connector is not available in this version of Meridian, so it cannot run ${runType}.`,
      );
    const capabilities = capabilitiesOf(connector, system.settings);
    if (!capabilities[needs]) {
      const mode = system.settings.mode ? ` (mode ${String(system.settings.mode)})` : '';
      throw DomainError.validation(
        field,
        `The ${connector.type} connector cannot run ${runType} with the settings of "${system.name}"${mode}.`,
      );
    }
  }

  private async require(m: EntityManager, systemId: number, id: number): Promise<RunProfileEntity> {
    const profile = await m.getRepository(RunProfileEntity).findOneBy({ id, connectedSystemId: systemId });
    if (!profile) throw DomainError.notFound('Run profile', id);
    return profile;
  }

  private async assertNameFree(m: EntityManager, systemId: number, name: string, exceptId: number | null): Promise<void> {
    const taken = await new ConnectedSystemStore(m).runProfileNamedLike(systemId, name, exceptId);
    if (taken !== null)
      throw DomainError.conflict(`This connected system already has a run profile named "${name}" (id ${taken}).`, { id: taken });
  }

  private async saving<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (isUniqueViolation(e, NAME_CONSTRAINT))
        throw DomainError.conflict('This connected system already has a run profile with that name.');
      throw e;
    }
  }
}
