import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  DomainError,
  requiredCapability,
  RunType,
  UNRESOLVED_REFERENCE_HANDLINGS,
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

export interface ConnectedSystemInput {
  name?: unknown;
  description?: unknown;
  connectorType?: unknown;
  settings?: unknown;
  unresolvedReferenceHandling?: unknown;
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

  async create(input: ConnectedSystemInput, initiator: Initiator): Promise<ConnectedSystemDetail> {
    const errors = new ValidationErrorCollector();
    const name = this.validateName(input.name, errors, true);
    const description = this.validateDescription(input.description, errors);
    const handling = this.validateHandling(input.unresolvedReferenceHandling, errors);
    let connector: Connector | undefined;
    if (typeof input.connectorType !== 'string' || !input.connectorType.trim()) errors.add('connectorType', 'connectorType is required.');
    else connector = this.collect(errors, () => this.registry.require(input.connectorType as string));
    const settings = connector
      ? this.collect(errors, () => validateConnectorSettings(connector!.settings, this.settingsObject(input.settings, errors)))
      : undefined;
    errors.throwIfAny();

    return this.saving(() =>
      this.ds.transaction(async (m) => {
        await this.assertNameFree(m, name!, null);
        const repo = m.getRepository(ConnectedSystemEntity);
        const saved = await repo.save(
          repo.create({
            name: name!,
            description: description ?? null,
            connectorType: connector!.type,
            settings: settings!.plain,
            unresolvedReferenceHandling: handling ?? 'Warn',
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

  async update(id: number, input: ConnectedSystemInput, initiator: Initiator): Promise<ConnectedSystemDetail> {
    return this.saving(() =>
      this.ds.transaction(async (m) => {
        const system = await findSystemForChange(m, id);
        const errors = new ValidationErrorCollector();
        const name = this.validateName(input.name, errors, false);
        const description = this.validateDescription(input.description, errors);
        const handling = this.validateHandling(input.unresolvedReferenceHandling, errors);
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
            settings = this.collect(errors, () =>
              validateConnectorSettings(connector.settings, this.settingsObject(input.settings, errors), previous),
            );
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

  private settingsObject(value: unknown, errors: ValidationErrorCollector): Record<string, unknown> {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      errors.add('settings', 'settings must be an object of setting name to value.');
      return {};
    }
    return value as Record<string, unknown>;
  }

  private validateName(value: unknown, errors: ValidationErrorCollector, required: boolean): string | undefined {
    if (value === undefined && !required) return undefined;
    const name = typeof value === 'string' ? value.trim() : '';
    if (!name || name.length > 200) {
      errors.add('name', 'name is required and must be 1-200 characters.');
      return undefined;
    }
    return name;
  }

  private validateDescription(value: unknown, errors: ValidationErrorCollector): string | null | undefined {
    if (value === undefined || value === null) return value as null | undefined;
    if (typeof value !== 'string' || value.length > 2000) {
      errors.add('description', 'description must be text of at most 2000 characters.');
      return undefined;
    }
    return value;
  }

  private validateHandling(value: unknown, errors: ValidationErrorCollector): string | undefined {
    if (value === undefined) return undefined;
    const match =
      typeof value === 'string' ? UNRESOLVED_REFERENCE_HANDLINGS.find((h) => h.toLowerCase() === value.toLowerCase()) : undefined;
    if (!match)
      errors.add('unresolvedReferenceHandling', `unresolvedReferenceHandling must be one of ${UNRESOLVED_REFERENCE_HANDLINGS.join(', ')}.`);
    return match;
  }
}
