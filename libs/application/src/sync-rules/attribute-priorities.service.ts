import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, checkCompleteOrder, DomainError, ValidationErrorCollector } from '@meridian/domain';
import { AttributePriorityRow, AttributePriorityStore, SyncRuleSchemaStore } from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';

/** One import mapping contributing a metaverse attribute of a metaverse object type, with its priority (1 = highest). */
export type AttributePriorityView = AttributePriorityRow;

/** Which contributors to list: of one metaverse object type and/or attribute, or all. */
export interface AttributePriorityQuery {
  metaverseObjectTypeId?: number;
  metaverseAttributeId?: number;
}

/** The new order of one group: every contributing mapping exactly once (checked against the group), highest first. */
export interface AttributePriorityInput {
  metaverseObjectTypeId: number;
  metaverseAttributeId: number;
  mappingIds: readonly unknown[];
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
    const errors = new ValidationErrorCollector();
    const { metaverseObjectTypeId: typeId, metaverseAttributeId: attributeId } = query;
    if (typeId !== undefined) await this.requireType(m, typeId, errors);
    if (attributeId !== undefined) await this.requireAttribute(m, attributeId, typeId, errors);
    errors.throwIfAny();
    return new AttributePriorityStore(m).contributors({ metaverseObjectTypeId: typeId, metaverseAttributeId: attributeId });
  }

  async set(input: AttributePriorityInput, initiator: Initiator): Promise<AttributePriorityView[]> {
    const errors = new ValidationErrorCollector();
    const { metaverseObjectTypeId: typeId, metaverseAttributeId: attributeId, mappingIds } = input;

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

  private async requireType(
    m: EntityManager,
    id: number,
    errors: ValidationErrorCollector,
  ): Promise<{ id: number; name: string } | undefined> {
    const type = await new SyncRuleSchemaStore(m).mvObjectType(id);
    if (!type) errors.add('metaverseObjectTypeId', `Metaverse object type ${id} does not exist.`);
    return type ?? undefined;
  }

  private async requireAttribute(
    m: EntityManager,
    id: number,
    typeId: number | undefined,
    errors: ValidationErrorCollector,
  ): Promise<{ id: number; name: string } | undefined> {
    const attribute = await new SyncRuleSchemaStore(m).mvAttributeOfType(id, typeId);
    if (!attribute) errors.add('metaverseAttributeId', `Metaverse attribute ${id} does not exist.`);
    else if (typeId !== undefined && !attribute.ofType)
      errors.add('metaverseAttributeId', `Metaverse attribute "${attribute.name}" is not an attribute of metaverse object type ${typeId}.`);
    return attribute ?? undefined;
  }
}
