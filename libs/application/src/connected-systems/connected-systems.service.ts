import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  DomainError,
  requiredCapability,
  RunType,
  UnresolvedReferenceHandling,
  ValidationErrorCollector,
} from '@meridian/domain';
import {
  Connector,
  ConnectorCapabilities,
  ConnectorRegistry,
  SettingInputValue,
  validateConnectorSettings,
  ValidatedSettings,
} from '@meridian/connectors';
import { ConnectedSystemEntity, RunProfileEntity, ConnectedSystemStore } from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { ConnectorContextFactory } from './connector-context.factory';
import {
  deletionActivityId,
  findSystem,
  findSystemForChange,
  isUniqueViolation,
  recordSystemChange,
  systemCounts,
} from './connected-system.lookup';
import {
  connectedSystemDetail,
  ConnectedSystemDetail,
  connectedSystemSummary,
  ConnectedSystemSummary,
  secretSettingNames,
} from './connected-system.views';

/** A new connected system, its fields already of the right type and length (the settings are checked by the connector). */
export interface CreateConnectedSystemCommand {
  name: string;
  description?: string | null;
  connectorType: string;
  /** Absent or null: no settings given. */
  settings?: Record<string, unknown> | null;
  unresolvedReferenceHandling?: UnresolvedReferenceHandling;
}

/** A partial update: absent fields keep their value; connectorType is accepted only as the current type. */
export interface UpdateConnectedSystemCommand {
  name?: string;
  description?: string | null;
  connectorType?: string | null;
  /** Settings not named keep their value. */
  settings?: Record<string, unknown> | null;
  unresolvedReferenceHandling?: UnresolvedReferenceHandling;
}

/** What a connector can do with these settings (e.g. a file in Import mode cannot export). */
export function capabilitiesOf(connector: Connector, settings: Record<string, SettingInputValue>): ConnectorCapabilities {
  return connector.effectiveCapabilities?.(settings) ?? connector.capabilities;
}

/** The run profiles a connector could no longer run with new settings, as "name (RunType)". */
export function unsupportedRunProfiles(
  capabilities: ConnectorCapabilities,
  profiles: Array<Pick<RunProfileEntity, 'name' | 'runType'>>,
): string[] {
  return profiles
    .filter((p) => {
      const needs = requiredCapability(p.runType as RunType);
      return needs !== null && !capabilities[needs];
    })
    .map((p) => `"${p.name}" (${p.runType})`);
}

const NAME_CONSTRAINT = 'uq_connected_system_name';

/** Connected systems: create, read, update, with settings validated by the connector and secrets sealed. */
@Injectable()
export class ConnectedSystemsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly registry: ConnectorRegistry,
    private readonly contexts: ConnectorContextFactory,
  ) {}

  async list(): Promise<ConnectedSystemSummary[]> {
    const systems = await this.ds.getRepository(ConnectedSystemEntity).find({ order: { name: 'ASC' } });
    const counts = await systemCounts(
      this.ds.manager,
      systems.map((s) => s.id),
    );
    return systems.map((s) => connectedSystemSummary(s, counts.get(s.id)!));
  }

  async get(id: number, m: EntityManager = this.ds.manager): Promise<ConnectedSystemDetail> {
    const system = await findSystem(m, id);
    const counts = await systemCounts(m, [id]);
    const connector = this.registry.find(system.connectorType);
    return connectedSystemDetail(
      system,
      counts.get(id)!,
      connector ? capabilitiesOf(connector, system.settings) : null,
      await deletionActivityId(m, id),
    );
  }

  async create(input: CreateConnectedSystemCommand, initiator: Initiator): Promise<ConnectedSystemDetail> {
    const errors = new ValidationErrorCollector();
    const name = this.nonBlankName(input.name, errors);
    const connector = this.collect(errors, () => this.registry.require(input.connectorType));
    const settings = connector
      ? this.collect(errors, () => validateConnectorSettings(connector.settings, input.settings ?? {}))
      : undefined;
    errors.throwIfAny();

    return this.saving(() =>
      this.ds.transaction(async (m) => {
        await this.assertNameFree(m, name!, null);
        const repo = m.getRepository(ConnectedSystemEntity);
        const saved = await repo.save(
          repo.create({
            name: name!,
            description: input.description ?? null,
            connectorType: connector!.type,
            settings: settings!.plain,
            unresolvedReferenceHandling: input.unresolvedReferenceHandling ?? UnresolvedReferenceHandling.Warn,
            secretSettings: null,
          }),
        );
        // The id is part of the secrets' associated data, so they are sealed once the row exists.
        saved.secretSettings = this.contexts.sealSecrets(saved.id, settings!.secrets);
        if (saved.secretSettings) await repo.update({ id: saved.id }, { secretSettings: saved.secretSettings });
        await recordSystemChange(
          this.activities,
          m,
          {
            initiator,
            targetType: ActivityTargetType.ConnectedSystem,
            operation: ActivityOperationType.Create,
            targetId: saved.id,
            targetName: saved.name,
            message: `Connected system "${saved.name}" (${saved.connectorType}) created.`,
            details: {
              connectorType: saved.connectorType,
              settings: saved.settings,
              secretSettingsSet: secretSettingNames(saved.secretSettings),
              unresolvedReferenceHandling: saved.unresolvedReferenceHandling,
            },
          },
          { connectedSystemId: saved.id },
        );
        return this.get(saved.id, m);
      }),
    );
  }

  async update(id: number, input: UpdateConnectedSystemCommand, initiator: Initiator): Promise<ConnectedSystemDetail> {
    return this.saving(() =>
      this.ds.transaction(async (m) => {
        const system = await findSystemForChange(m, id);
        const errors = new ValidationErrorCollector();
        const name = input.name !== undefined ? this.nonBlankName(input.name, errors) : undefined;
        const { description, unresolvedReferenceHandling: handling } = input;
        if (
          input.connectorType !== undefined &&
          (typeof input.connectorType !== 'string' || input.connectorType.toLowerCase() !== system.connectorType.toLowerCase())
        ) {
          errors.add(
            'connectorType',
            `connectorType cannot be changed (it is ${system.connectorType}); create a new connected system instead.`,
          );
        }
        let settings: ValidatedSettings | undefined;
        const connector = this.registry.find(system.connectorType);
        if (input.settings !== undefined) {
          if (!connector)
            errors.add(
              'settings',
              `The ${system.connectorType} connector is not available in this version of Meridian, so its settings cannot be changed.`,
            );
          else {
            const previous = { plain: system.settings, secrets: this.contexts.openSecrets(system) };
            settings = this.collect(errors, () => validateConnectorSettings(connector.settings, input.settings ?? {}, previous));
          }
        }
        if (settings && connector) {
          const profiles = await m
            .getRepository(RunProfileEntity)
            .find({ where: { connectedSystemId: id }, select: { name: true, runType: true } });
          const refused = unsupportedRunProfiles(capabilitiesOf(connector, settings.plain), profiles);
          if (refused.length)
            errors.add(
              'settings',
              `With these settings the ${connector.type} connector could no longer run ${refused.join(', ')}; change or delete those run profiles first.`,
            );
        }
        errors.throwIfAny();

        const changed: string[] = [];
        const details: Record<string, unknown> = {};
        if (name !== undefined && name !== system.name) {
          await this.assertNameFree(m, name, id);
          details.name = { from: system.name, to: name };
          system.name = name;
          changed.push('name');
        }
        if (description !== undefined && description !== system.description) {
          system.description = description;
          changed.push('description');
        }
        if (handling !== undefined && handling !== system.unresolvedReferenceHandling) {
          details.unresolvedReferenceHandling = { from: system.unresolvedReferenceHandling, to: handling };
          system.unresolvedReferenceHandling = handling;
          changed.push('unresolvedReferenceHandling');
        }
        if (settings) {
          const plainChanges = Object.fromEntries(
            Object.keys({ ...system.settings, ...settings.plain })
              .filter((k) => JSON.stringify(system.settings[k] ?? null) !== JSON.stringify(settings!.plain[k] ?? null))
              .map((k) => [k, { from: system.settings[k] ?? null, to: settings!.plain[k] ?? null }]),
          );
          const before = this.contexts.openSecrets(system);
          const secretChanges = [...new Set([...Object.keys(before), ...Object.keys(settings.secrets)])]
            .filter((k) => before[k] !== settings!.secrets[k])
            .sort();
          if (Object.keys(plainChanges).length) {
            details.settings = plainChanges;
            system.settings = settings.plain;
            changed.push('settings');
          }
          if (secretChanges.length) {
            // Only names: the values (old or new) never go into an activity or a log.
            details.secretSettingsChanged = secretChanges;
            system.secretSettings = this.contexts.sealSecrets(system.id, settings.secrets);
            if (!changed.includes('settings')) changed.push('settings');
          }
        }
        if (changed.length) {
          system.lastUpdated = new Date();
          await m.getRepository(ConnectedSystemEntity).save(system);
          await recordSystemChange(
            this.activities,
            m,
            {
              initiator,
              targetType: ActivityTargetType.ConnectedSystem,
              operation: ActivityOperationType.Update,
              targetId: id,
              targetName: system.name,
              message: `Connected system "${system.name}" updated (${changed.join(', ')}).`,
              details: { changed, ...details },
            },
            { connectedSystemId: id },
          );
        }
        return this.get(id, m);
      }),
    );
  }

  private async assertNameFree(m: EntityManager, name: string, exceptId: number | null): Promise<void> {
    const id = await new ConnectedSystemStore(m).systemNamedLike(name, exceptId);
    if (id !== null)
      throw DomainError.conflict(`A connected system named "${name}" already exists (id ${id}); names are unique, ignoring case.`, { id });
  }

  private async saving<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (isUniqueViolation(e, NAME_CONSTRAINT))
        throw DomainError.conflict('A connected system with that name already exists; names are unique, ignoring case.');
      throw e;
    }
  }

  /** Runs a validation that throws VALIDATION_ERROR and adds its field errors to the collector. */
  private collect<T>(errors: ValidationErrorCollector, validate: () => T): T | undefined {
    try {
      return validate();
    } catch (e) {
      if (!(e instanceof DomainError) || !e.validationErrors) throw e;
      for (const [field, messages] of Object.entries(e.validationErrors)) for (const msg of messages) errors.add(field, msg);
      return undefined;
    }
  }

  /**
   * The name without surrounding spaces; a blank one is refused here rather than on the request body, so that it
   * is reported together with the connector's verdict on the settings. Type and length are the body's rules.
   */
  private nonBlankName(value: string, errors: ValidationErrorCollector): string | undefined {
    const name = value.trim();
    if (!name) errors.add('name', 'name is required and must be 1-200 characters.');
    return name || undefined;
  }
}
