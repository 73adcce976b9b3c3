import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, checkCompleteOrder, DomainError } from '@meridian/domain';
import { AttributePriorityRow, AttributePriorityStore, SyncRuleSchemaStore } from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { FieldErrors, positiveInt } from './sync-rule.support';

/** One import mapping contributing a metaverse attribute of a metaverse object type, with its priority (1 = highest). */
export type AttributePriorityView = AttributePriorityRow;

export interface AttributePriorityQuery {
  metaverseObjectTypeId?: unknown;
  metaverseAttributeId?: unknown;
}

export interface AttributePriorityInput {
  metaverseObjectTypeId?: unknown;
  metaverseAttributeId?: unknown;
  mappingIds?: unknown;
}

/**
 * Attribute priority (DOMAIN.md §2.2.6): the order in which the import mappings that target the same
 * metaverse object type × attribute win. Read per attribute (or all of them) and set as a whole.
 */
@Injectable()
export class AttributePrioritiesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  async list(query: AttributePriorityQuery, m: EntityManager = this.ds.manager): Promise<AttributePriorityView[]> {
    const errors = new FieldErrors();
    const typeId = this.queryId(query.metaverseObjectTypeId, 'metaverseObjectTypeId', errors);
    const attributeId = this.queryId(query.metaverseAttributeId, 'metaverseAttributeId', errors);
    errors.throwIfAny();
    if (typeId !== undefined) await this.requireType(m, typeId, errors);
    if (attributeId !== undefined) await this.requireAttribute(m, attributeId, typeId, errors);
    errors.throwIfAny();
    return new AttributePriorityStore(m).contributors({ metaverseObjectTypeId: typeId, metaverseAttributeId: attributeId });
  }

  async set(input: AttributePriorityInput, initiator: Initiator): Promise<AttributePriorityView[]> {
    const errors = new FieldErrors();
    if (!positiveInt(input.metaverseObjectTypeId))
      errors.add('metaverseObjectTypeId', 'metaverseObjectTypeId is required and must be a positive whole number.');
    if (!positiveInt(input.metaverseAttributeId))
      errors.add('metaverseAttributeId', 'metaverseAttributeId is required and must be a positive whole number.');
    if (!Array.isArray(input.mappingIds)) errors.add('mappingIds', 'mappingIds must be an array of mapping ids, highest priority first.');
    errors.throwIfAny();
    const typeId = input.metaverseObjectTypeId as number;
    const attributeId = input.metaverseAttributeId as number;
    const mappingIds = input.mappingIds as unknown[];

    return this.ds.transaction(async (m) => {
      const type = await this.requireType(m, typeId, errors);
      const attribute = await this.requireAttribute(m, attributeId, typeId, errors);
      errors.throwIfAny();
      const group = { metaverseObjectTypeId: typeId, metaverseAttributeId: attributeId };
      const priorities = new AttributePriorityStore(m);
      await priorities.lockGroups([group]);
      const current = await priorities.groupMappingIds(group);
      if (!current.length) {
        throw DomainError.validation(
          'mappingIds',
          `No import mapping contributes "${attribute!.name}" of "${type!.name}": there is nothing to order.`,
        );
      }
      const problems = checkCompleteOrder(
        current,
        mappingIds,
        'mappingIds',
        `import mappings contributing "${attribute!.name}" of "${type!.name}" (${current.join(', ')})`,
      );
      if (Object.keys(problems).length) throw DomainError.validationMany(problems);
      const changed = await priorities.writeOrder(mappingIds as number[]);
      const views = await this.list(group, m);
      if (changed.length) {
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.MetaverseAttribute,
            operation: ActivityOperationType.Update,
            targetId: attributeId,
            targetName: attribute!.name,
            targetContext: type!.name,
            message: 'Attribute priority changed',
            details: {
              metaverseObjectTypeId: typeId,
              priority: views.map((v) => ({
                priority: v.priority,
                mappingId: v.mappingId,
                syncRuleName: v.syncRuleName,
                connectedSystemName: v.connectedSystemName,
              })),
            },
          },
          m,
        );
      }
      return views;
    });
  }

  private queryId(raw: unknown, field: string, errors: FieldErrors): number | undefined {
    if (raw === undefined || raw === '') return undefined;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
    if (!positiveInt(n)) {
      errors.add(field, `${field} must be a positive whole number.`);
      return undefined;
    }
    return n;
  }

  private async requireType(m: EntityManager, id: number, errors: FieldErrors): Promise<{ id: number; name: string } | undefined> {
    const type = await new SyncRuleSchemaStore(m).mvObjectType(id);
    if (!type) errors.add('metaverseObjectTypeId', `Metaverse object type ${id} does not exist.`);
    return type ?? undefined;
  }

  private async requireAttribute(
    m: EntityManager,
    id: number,
    typeId: number | undefined,
    errors: FieldErrors,
  ): Promise<{ id: number; name: string } | undefined> {
    const attribute = await new SyncRuleSchemaStore(m).mvAttributeOfType(id, typeId);
    if (!attribute) errors.add('metaverseAttributeId', `Metaverse attribute ${id} does not exist.`);
    else if (typeId !== undefined && !attribute.ofType)
      errors.add('metaverseAttributeId', `Metaverse attribute "${attribute.name}" is not an attribute of metaverse object type ${typeId}.`);
    return attribute ?? undefined;
  }
}
