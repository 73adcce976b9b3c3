import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, checkCompleteOrder, DomainError, SyncRuleDirection } from '@meridian/domain';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { lockPriorityGroups, priorityGroupMappingIds, writePriorityOrder } from './attribute-priority.store';
import { FieldErrors, positiveInt } from './sync-rule.support';

/** One import mapping contributing a metaverse attribute of a metaverse object type, with its priority (1 = highest). */
export interface AttributePriorityView {
  metaverseObjectTypeId: number;
  metaverseObjectTypeName: string;
  metaverseAttributeId: number;
  metaverseAttributeName: string;
  mappingId: number;
  syncRuleId: number;
  syncRuleName: string;
  syncRuleEnabled: boolean;
  mappingEnabled: boolean;
  connectedSystemId: number;
  connectedSystemName: string;
  priority: number;
  nullIsValue: boolean;
}

export interface AttributePriorityQuery {
  metaverseObjectTypeId?: unknown;
  metaverseAttributeId?: unknown;
}

export interface AttributePriorityInput {
  metaverseObjectTypeId?: unknown;
  metaverseAttributeId?: unknown;
  mappingIds?: unknown;
}

const SELECT = `
  SELECT r.metaverse_object_type_id AS "metaverseObjectTypeId", mt.name AS "metaverseObjectTypeName",
         m.target_metaverse_attribute_id AS "metaverseAttributeId", ma.name AS "metaverseAttributeName",
         m.id AS "mappingId", r.id AS "syncRuleId", r.name AS "syncRuleName", r.enabled AS "syncRuleEnabled", m.enabled AS "mappingEnabled",
         r.connected_system_id AS "connectedSystemId", cs.name AS "connectedSystemName", m.priority, m.null_is_value AS "nullIsValue"
    FROM sync_rule_mapping m
    JOIN sync_rule r ON r.id = m.sync_rule_id
    JOIN connected_system cs ON cs.id = r.connected_system_id
    JOIN metaverse_object_type mt ON mt.id = r.metaverse_object_type_id
    JOIN metaverse_attribute ma ON ma.id = m.target_metaverse_attribute_id
   WHERE r.direction = '${SyncRuleDirection.Import}'`;

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
    const params: number[] = [];
    let where = '';
    if (typeId !== undefined) where += ` AND r.metaverse_object_type_id = $${params.push(typeId)}`;
    if (attributeId !== undefined) where += ` AND m.target_metaverse_attribute_id = $${params.push(attributeId)}`;
    return m.query(`${SELECT}${where} ORDER BY lower(mt.name), mt.id, lower(ma.name), ma.id, m.priority NULLS LAST, m.id`, params);
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
      await lockPriorityGroups(m, [group]);
      const current = await priorityGroupMappingIds(m, group);
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
      const changed = await writePriorityOrder(m, mappingIds as number[]);
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
    const [type] = await m.query(`SELECT id, name FROM metaverse_object_type WHERE id = $1`, [id]);
    if (!type) errors.add('metaverseObjectTypeId', `Metaverse object type ${id} does not exist.`);
    return type;
  }

  private async requireAttribute(
    m: EntityManager,
    id: number,
    typeId: number | undefined,
    errors: FieldErrors,
  ): Promise<{ id: number; name: string } | undefined> {
    const [attribute] = await m.query(
      `SELECT a.id, a.name, EXISTS (SELECT 1 FROM metaverse_object_type_attribute ta WHERE ta.attribute_id = a.id AND ta.object_type_id = $2) AS "ofType"
         FROM metaverse_attribute a WHERE a.id = $1`,
      [id, typeId ?? 0],
    );
    if (!attribute) errors.add('metaverseAttributeId', `Metaverse attribute ${id} does not exist.`);
    else if (typeId !== undefined && !attribute.ofType)
      errors.add('metaverseAttributeId', `Metaverse attribute "${attribute.name}" is not an attribute of metaverse object type ${typeId}.`);
    return attribute;
  }
}
