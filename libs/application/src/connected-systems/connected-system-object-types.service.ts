import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  AttributeSelectionUpdate,
  DomainError,
  planAttributeSelection,
  ValidationErrorCollector,
} from '@meridian/domain';
import {
  ConnectedSystemAttributeEntity,
  ConnectedSystemEntity,
  ConnectedSystemObjectTypeEntity,
  ConnectedSystemStore,
} from '@meridian/persistence';
import { DataSource, EntityManager, In } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { findSystem, findSystemForChange, recordSystemChange } from './connected-system.lookup';
import { csAttributeView, CsAttributeView, csObjectTypeView, CsObjectTypeView } from './connected-system.views';

/** The object type fields an administrator may change; absent fields keep their value. */
export interface CsObjectTypeChanges {
  selected?: boolean;
  removeContributedAttributesOnObsoletion?: boolean;
}

export interface BulkAttributeUpdateResult {
  activityId: string;
  updatedCount: number;
  updatedAttributes: Array<
    Pick<CsAttributeView, 'id' | 'name' | 'selected' | 'isExternalId' | 'isSecondaryExternalId' | 'selectionLocked'>
  >;
  errors: Array<{ attributeId: number; errorMessage: string }> | null;
}

const ATTRIBUTE_FIELDS = ['selected', 'isExternalId', 'isSecondaryExternalId'] as const;

/** The schema selection of a connected system: object types and attributes (spec 4.9). */
@Injectable()
export class ConnectedSystemObjectTypesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  async list(systemId: number): Promise<CsObjectTypeView[]> {
    await findSystem(this.ds.manager, systemId);
    const types = await this.ds
      .getRepository(ConnectedSystemObjectTypeEntity)
      .find({ where: { connectedSystemId: systemId }, order: { name: 'ASC', id: 'ASC' } });
    const attributes = types.length
      ? await this.ds
          .getRepository(ConnectedSystemAttributeEntity)
          .find({ where: { objectTypeId: In(types.map((t) => t.id)) }, order: { name: 'ASC', id: 'ASC' } })
      : [];
    return types.map((t) =>
      csObjectTypeView(
        t,
        attributes.filter((a) => a.objectTypeId === t.id),
      ),
    );
  }

  async updateObjectType(systemId: number, typeId: number, input: CsObjectTypeChanges, initiator: Initiator): Promise<CsObjectTypeView> {
    return this.ds.transaction(async (m) => {
      const system = await findSystemForChange(m, systemId);
      const type = await this.lockType(m, systemId, typeId);
      const changes: Record<string, { from: boolean; to: boolean }> = {};
      for (const field of ['selected', 'removeContributedAttributesOnObsoletion'] as const) {
        const value = input[field];
        if (value !== undefined && value !== type[field]) {
          changes[field] = { from: type[field], to: value };
          type[field] = value;
        }
      }
      if (Object.keys(changes).length) {
        await m
          .getRepository(ConnectedSystemObjectTypeEntity)
          .update(
            { id: typeId },
            { selected: type.selected, removeContributedAttributesOnObsoletion: type.removeContributedAttributesOnObsoletion },
          );
        await this.markChanged(m, system);
        await recordSystemChange(
          this.activities,
          m,
          {
            initiator,
            targetType: ActivityTargetType.ConnectedSystem,
            operation: ActivityOperationType.Update,
            targetId: systemId,
            targetName: system.name,
            message: `Object type "${type.name}" of "${system.name}" updated (${Object.keys(changes).join(', ')}).`,
            details: { objectTypeId: typeId, objectType: type.name, changes },
          },
          { connectedSystemId: systemId },
        );
      }
      const attributes = await m
        .getRepository(ConnectedSystemAttributeEntity)
        .find({ where: { objectTypeId: typeId }, order: { name: 'ASC', id: 'ASC' } });
      return csObjectTypeView(type, attributes);
    });
  }

  /** Single attribute update: a rule violation is a 400 VALIDATION_ERROR naming the field. */
  async updateAttribute(
    systemId: number,
    typeId: number,
    attributeId: number,
    update: AttributeSelectionUpdate,
    initiator: Initiator,
  ): Promise<CsAttributeView> {
    return this.ds.transaction(async (m) => {
      const { system, type, attributes } = await this.loadForAttributeChange(m, systemId, typeId);
      if (!attributes.some((a) => a.id === attributeId)) throw DomainError.notFound('Attribute', attributeId);
      const plan = planAttributeSelection(attributes, [[attributeId, update]]);
      if (plan.errors.length) {
        throw DomainError.validationMany(Object.fromEntries(plan.errors.map((e) => [e.field, [e.message]])), plan.errors[0].message);
      }
      await this.apply(
        m,
        system,
        type,
        attributes,
        plan.changed,
        initiator,
        `Attribute "${attributes.find((a) => a.id === attributeId)!.name}" of "${type.name}" updated.`,
      );
      const saved = await m.getRepository(ConnectedSystemAttributeEntity).findOneByOrFail({ id: attributeId });
      return csAttributeView(saved);
    });
  }

  /**
   * Bulk update (spec 4.9, 2.15). The request itself must be valid (non-empty, known attribute ids,
   * boolean fields) or it is a 400; rule violations of single attributes become `errors` entries
   * while the other attributes are updated. The body has made sure `dictionary` is an object; its keys
   * and values are read here, where each problem can be named by its attribute id.
   */
  async bulkUpdateAttributes(
    systemId: number,
    typeId: number,
    dictionary: Record<string, unknown>,
    initiator: Initiator,
  ): Promise<BulkAttributeUpdateResult> {
    const errors = new ValidationErrorCollector();
    const entries: Array<[number, AttributeSelectionUpdate]> = [];
    if (!Object.keys(dictionary).length) errors.add('attributes', 'attributes must contain at least one attribute id.');
    for (const [key, value] of Object.entries(dictionary)) {
      if (!/^\d{1,10}$/.test(key) || Number(key) < 1 || Number(key) > 2_147_483_647) {
        errors.add(`attributes.${key}`, `"${key}" is not an attribute id.`);
        continue;
      }
      const update = this.parseUpdate(value, `attributes.${key}`, errors);
      if (update) entries.push([Number(key), update]);
    }
    errors.throwIfAny();
    return this.ds.transaction(async (m) => {
      const { system, type, attributes } = await this.loadForAttributeChange(m, systemId, typeId);
      const known = new Set(attributes.map((a) => a.id));
      const unknown = entries.filter(([id]) => !known.has(id)).map(([id]) => id);
      if (unknown.length) {
        throw DomainError.validationMany(
          Object.fromEntries(
            unknown.map((id) => [`attributes.${id}`, [`Attribute ${id} is not an attribute of object type "${type.name}" (${typeId}).`]]),
          ),
          `Unknown attribute id(s) for object type "${type.name}": ${unknown.join(', ')}.`,
        );
      }
      const plan = planAttributeSelection(attributes, entries);
      const activity = await this.apply(
        m,
        system,
        type,
        attributes,
        plan.changed,
        initiator,
        `Bulk update of ${entries.length} attribute(s) of "${type.name}": ${plan.applied.length} applied, ${plan.errors.length} refused.`,
        plan.errors.length ? { errors: plan.errors.map((e) => ({ attributeId: e.attributeId, errorMessage: e.message })) } : {},
        true,
      );
      const updatedAttributes = plan.affected.map((a) => ({
        id: a.id,
        name: a.name,
        selected: a.selected,
        isExternalId: a.isExternalId,
        isSecondaryExternalId: a.isSecondaryExternalId,
        selectionLocked: a.isExternalId || a.isSecondaryExternalId,
      }));
      return {
        activityId: activity!.id,
        updatedCount: updatedAttributes.length,
        updatedAttributes,
        errors: plan.errors.length ? plan.errors.map((e) => ({ attributeId: e.attributeId, errorMessage: e.message })) : null,
      };
    });
  }

  /** One value of the bulk dictionary: an object with at least one of the attribute fields, each true or false. */
  private parseUpdate(value: unknown, field: string, errors: ValidationErrorCollector): AttributeSelectionUpdate | undefined {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      errors.add(field, 'each value must be an object with selected, isExternalId and/or isSecondaryExternalId.');
      return undefined;
    }
    const update: AttributeSelectionUpdate = {};
    for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
      if (!(ATTRIBUTE_FIELDS as readonly string[]).includes(name)) {
        errors.add(`${field}.${name}`, `${field}.${name} is not a known field`);
        continue;
      }
      if (v === undefined) continue;
      if (typeof v !== 'boolean') {
        errors.add(`${field}.${name}`, `${name} must be true or false.`);
        continue;
      }
      update[name as keyof AttributeSelectionUpdate] = v;
    }
    if (!Object.keys(update).length && !errors.hasErrors) {
      errors.add(field, 'give at least one of selected, isExternalId, isSecondaryExternalId.');
    }
    return update;
  }

  private async lockType(m: EntityManager, systemId: number, typeId: number): Promise<ConnectedSystemObjectTypeEntity> {
    // Locking the type serialises attribute updates of one type, so two requests cannot each set a
    // different external ID.
    const type = await m
      .getRepository(ConnectedSystemObjectTypeEntity)
      .createQueryBuilder('t')
      .where('t.id = :typeId AND t.connected_system_id = :systemId', { typeId, systemId })
      .setLock('pessimistic_write')
      .getOne();
    if (!type) throw DomainError.notFound('Object type', typeId);
    return type;
  }

  private async loadForAttributeChange(m: EntityManager, systemId: number, typeId: number) {
    const system = await findSystemForChange(m, systemId);
    const type = await this.lockType(m, systemId, typeId);
    const attributes = await m
      .getRepository(ConnectedSystemAttributeEntity)
      .find({ where: { objectTypeId: typeId }, order: { id: 'ASC' } });
    return { system, type, attributes };
  }

  /** Writes the changed attributes in one statement, marks the system for a full sync, records the activity. */
  private async apply(
    m: EntityManager,
    system: ConnectedSystemEntity,
    type: ConnectedSystemObjectTypeEntity,
    before: ConnectedSystemAttributeEntity[],
    changed: Array<{ id: number; name: string; selected: boolean; isExternalId: boolean; isSecondaryExternalId: boolean }>,
    initiator: Initiator,
    message: string,
    extra: Record<string, unknown> = {},
    always = false,
  ) {
    if (changed.length) {
      await new ConnectedSystemStore(m).setAttributeFlags(type.id, changed);
      await this.markChanged(m, system);
    }
    if (!changed.length && !always) return null;
    const was = new Map(before.map((a) => [a.id, a]));
    return recordSystemChange(
      this.activities,
      m,
      {
        initiator,
        targetType: ActivityTargetType.ConnectedSystem,
        operation: ActivityOperationType.Update,
        targetId: system.id,
        targetName: system.name,
        message,
        details: {
          objectTypeId: type.id,
          objectType: type.name,
          attributes: changed.map((c) => {
            const b = was.get(c.id)!;
            return {
              id: c.id,
              name: c.name,
              from: { selected: b.selected, isExternalId: b.isExternalId, isSecondaryExternalId: b.isSecondaryExternalId },
              to: { selected: c.selected, isExternalId: c.isExternalId, isSecondaryExternalId: c.isSecondaryExternalId },
            };
          }),
          ...extra,
        },
      },
      { connectedSystemId: system.id },
    );
  }

  private async markChanged(m: EntityManager, system: ConnectedSystemEntity): Promise<void> {
    await m.getRepository(ConnectedSystemEntity).update({ id: system.id }, { fullSyncRequired: true, lastUpdated: new Date() });
  }
}
