import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityStatus,
  ActivityTargetType,
  diffSchema,
  DomainError,
  SchemaDiff,
  StoredSchemaObjectType,
} from '@meridian/domain';
import { ConnectorContext, ConnectorRegistry, DiscoveredSchema } from '@meridian/connectors';
import {
  ActivityEntity,
  ConnectedSystemAttributeEntity,
  ConnectedSystemEntity,
  ConnectedSystemObjectTypeEntity,
} from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource, EntityManager, In } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { ConnectorContextFactory, withDeadline } from './connector-context.factory';
import { findSystem, findSystemForChange, recordSystemChange } from './connected-system.lookup';

export interface TestConnectionView {
  success: boolean;
  message: string;
  details: Record<string, unknown> | null;
}

export interface SchemaImportResult {
  activityId: string;
  objectTypesAdded: number;
  attributesAdded: number;
  attributesUpdated: number;
  objectTypesRemoved: string[];
  attributesRemoved: Array<{ objectType: string; attribute: string }>;
  objectTypesRestored: string[];
  attributesRestored: Array<{ objectType: string; attribute: string }>;
  attributesChanged: Array<{ objectType: string; attribute: string; fields: string[] }>;
  objectTypeCount: number;
  fullSyncRequired: boolean;
  warnings: string[];
}

/** A connector failure as one line: a validation error's field messages, else the error message. */
export function describeError(e: unknown): string {
  if (e instanceof DomainError) {
    const fields = Object.values(e.validationErrors ?? {}).flat();
    return fields.length ? fields.join(' ') : e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

/** How long a connector may take to answer a connection test or a schema discovery. */
export const TEST_CONNECTION_TIMEOUT_MS = 30_000;
export const SCHEMA_DISCOVERY_TIMEOUT_MS = 120_000;

/** Talks to a connected system through its connector: test connection and schema import. */
@Injectable()
export class ConnectedSystemSchemaService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly registry: ConnectorRegistry,
    private readonly contexts: ConnectorContextFactory,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Never throws for a connector problem: the answer is `success: false` with the connector's message. */
  async testConnection(systemId: number): Promise<TestConnectionView> {
    const system = await findSystem(this.ds.manager, systemId);
    const connector = this.registry.find(system.connectorType);
    if (!connector)
      return {
        success: false,
        message: `The ${system.connectorType} connector is not available in this version of Meridian.`,
        details: null,
      };
    let ctx: ConnectorContext | null = null;
    try {
      const result = await withDeadline(TEST_CONNECTION_TIMEOUT_MS, 'The connection test', async (signal) => {
        ctx = await this.contexts.build(system, { signal });
        return connector.testConnection(ctx);
      });
      return {
        success: !!result.success,
        message: this.contexts.redact(String(result.message ?? ''), ctx, system),
        details: result.details ?? null,
      };
    } catch (e) {
      return { success: false, message: this.contexts.redact(describeError(e), ctx, system), details: null };
    }
  }

  /** Discovers the schema and merges it into the stored one (see diffSchema); records an ImportSchema activity. */
  async importSchema(systemId: number, initiator: Initiator): Promise<SchemaImportResult> {
    const system = await this.ds.transaction((m) => findSystemForChange(m, systemId, 'share'));
    const connector = this.registry.find(system.connectorType);
    if (!connector) throw DomainError.badRequest(`The ${system.connectorType} connector is not available in this version of Meridian.`);
    if (!connector.capabilities.schemaDiscovery) throw DomainError.badRequest(`The ${connector.type} connector cannot discover a schema.`);

    let discovered: DiscoveredSchema;
    let ctx: ConnectorContext | null = null;
    try {
      discovered = await withDeadline(SCHEMA_DISCOVERY_TIMEOUT_MS, 'Schema discovery', async (signal) => {
        ctx = await this.contexts.build(system, { signal });
        return connector.discoverSchema(ctx);
      });
      if (!discovered || !Array.isArray(discovered.objectTypes)) throw new Error('The connector returned no schema.');
    } catch (e) {
      const message = this.contexts.redact(describeError(e), ctx, system);
      const activityId = await this.recordFailure(system, initiator, message);
      this.logger.log({ level: 'warning', message: `Schema import of connected system ${system.id} failed: ${message}`, activityId });
      throw DomainError.badRequest(`Schema discovery failed: ${message}`, { activityId });
    }

    return this.ds.transaction(async (m) => {
      // Re-checked under the lock: the system may have been queued for deletion meanwhile; two
      // concurrent imports of one system run one after the other.
      const locked = await findSystemForChange(m, systemId);
      const stored = await this.loadStored(m, systemId);
      const diff = diffSchema(stored, discovered.objectTypes);
      await this.persist(m, systemId, diff);
      const fullSyncRequired = locked.fullSyncRequired || diff.affectsSelection;
      await m
        .getRepository(ConnectedSystemEntity)
        .update({ id: systemId }, { lastSchemaImport: new Date(), fullSyncRequired, lastUpdated: new Date() });
      const objectTypeCount = await m.getRepository(ConnectedSystemObjectTypeEntity).countBy({ connectedSystemId: systemId });
      const summary = {
        objectTypesAdded: diff.objectTypesToAdd.length,
        attributesAdded: diff.attributesToAdd.length + diff.objectTypesToAdd.reduce((n, t) => n + t.attributes.length, 0),
        attributesUpdated: diff.attributeUpdates.length,
        objectTypesRemoved: diff.objectTypesRemoved,
        attributesRemoved: diff.attributesRemoved,
        objectTypesRestored: diff.objectTypesRestored,
        attributesRestored: diff.attributesRestored,
        attributesChanged: diff.attributesChanged,
        objectTypeCount,
        fullSyncRequired,
        warnings: diff.warnings,
      };
      const activity = await recordSystemChange(
        this.activities,
        m,
        {
          initiator,
          targetType: ActivityTargetType.ConnectedSystem,
          operation: ActivityOperationType.ImportSchema,
          targetId: systemId,
          targetName: locked.name,
          message:
            `Schema imported: ${summary.objectTypesAdded} object type(s) and ${summary.attributesAdded} attribute(s) added, ` +
            `${summary.objectTypesRemoved.length} object type(s) and ${summary.attributesRemoved.length} attribute(s) no longer in the schema.`,
          details: summary,
        },
        { connectedSystemId: systemId },
      );
      if (diff.warnings.length)
        await m
          .getRepository(ActivityEntity)
          .update({ id: activity.id }, { warningMessage: diff.warnings.join('\n'), status: ActivityStatus.CompleteWithWarning });
      return { activityId: activity.id, ...summary };
    });
  }

  private async loadStored(m: EntityManager, systemId: number): Promise<StoredSchemaObjectType[]> {
    const types = await m
      .getRepository(ConnectedSystemObjectTypeEntity)
      .find({ where: { connectedSystemId: systemId }, order: { id: 'ASC' } });
    const attributes = types.length
      ? await m
          .getRepository(ConnectedSystemAttributeEntity)
          .find({ where: { objectTypeId: In(types.map((t) => t.id)) }, order: { id: 'ASC' } })
      : [];
    return types.map((t) => ({
      id: t.id,
      name: t.name,
      selected: t.selected,
      presentInSchema: t.presentInSchema,
      attributes: attributes.filter((a) => a.objectTypeId === t.id),
    }));
  }

  /** New rows in one multi-row insert per table; changed rows one statement each (few, by nature). */
  private async persist(m: EntityManager, systemId: number, diff: SchemaDiff): Promise<void> {
    const newTypeIds = new Map<string, number>();
    if (diff.objectTypesToAdd.length) {
      const inserted = await m
        .createQueryBuilder()
        .insert()
        .into(ConnectedSystemObjectTypeEntity)
        .values(diff.objectTypesToAdd.map((t) => ({ connectedSystemId: systemId, name: t.name, selected: false, presentInSchema: true })))
        .returning(['id', 'name'])
        .execute();
      for (const row of inserted.raw as Array<{ id: number; name: string }>) newTypeIds.set(row.name, row.id);
    }
    const attributeRows = [
      ...diff.objectTypesToAdd.flatMap((t) => t.attributes.map((a) => ({ objectTypeId: newTypeIds.get(t.name)!, ...a }))),
      ...diff.attributesToAdd.map((a) => ({ objectTypeId: a.objectTypeId, ...a.attribute })),
    ];
    for (let i = 0; i < attributeRows.length; i += 1000) {
      await m
        .createQueryBuilder()
        .insert()
        .into(ConnectedSystemAttributeEntity)
        .values(
          attributeRows.slice(i, i + 1000).map((a) => ({
            objectTypeId: a.objectTypeId,
            name: a.name,
            type: a.type,
            plurality: a.plurality,
            writability: a.writability,
            description: a.description,
            className: a.className,
            selected: a.selected,
            isExternalId: a.isExternalId,
            isSecondaryExternalId: a.isSecondaryExternalId,
            presentInSchema: true,
          })),
        )
        .execute();
    }
    for (const u of diff.objectTypeUpdates) await m.getRepository(ConnectedSystemObjectTypeEntity).update({ id: u.id }, u.changes);
    for (const u of diff.attributeUpdates) await m.getRepository(ConnectedSystemAttributeEntity).update({ id: u.id }, u.changes);
  }

  private async recordFailure(system: ConnectedSystemEntity, initiator: Initiator, message: string): Promise<string> {
    return this.ds.transaction(async (m) => {
      const activity = await recordSystemChange(
        this.activities,
        m,
        {
          initiator,
          targetType: ActivityTargetType.ConnectedSystem,
          operation: ActivityOperationType.ImportSchema,
          targetId: system.id,
          targetName: system.name,
          message: 'Schema import failed.',
        },
        { connectedSystemId: system.id },
      );
      await m.getRepository(ActivityEntity).update({ id: activity.id }, { status: ActivityStatus.FailedWithError, errorMessage: message });
      return activity.id;
    });
  }
}
