import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  applyDeletionRule,
  DEFAULT_DELETION_RULE,
  DeletionRule,
  DeletionRuleChange,
  DeletionRuleSettings,
  DeletionTriggerMode,
  DomainError,
  formatGracePeriod,
  ValidationErrorCollector,
} from '@meridian/domain';
import { MetaverseObjectTypeEntity, MetaverseSchemaStore } from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { detachProblem } from './metaverse-schema.usage';
import { checkIdsExist, distinctIds, isUniqueViolation, storedDescription } from './metaverse-schema.validation';
import { loadAttributes, loadObjectTypes, MetaverseObjectTypeDetailView, MetaverseObjectTypeView } from './metaverse-schema.views';

/**
 * Body of object type create (docs/metaverse.md), validated: a name by the schema's rule (trimmed here), a description
 * of at most 1000 characters, and each deletion field read by the domain's parser. The rule that spans the deletion
 * fields and what needs the database (unique names, existing attributes and systems) are checked here.
 */
export interface CreateMetaverseObjectTypeInput {
  name: string;
  description?: string | null;
  /** The attributes the type has (replaces the set on update). */
  attributeIds?: number[];
  deletionRule?: DeletionRule;
  /** In seconds; null: no grace period. */
  deletionGracePeriod?: number | null;
  /** null: none. */
  deletionTriggerConnectedSystemIds?: number[] | null;
  deletionTriggerMode?: DeletionTriggerMode;
}

/** Body of object type update, validated as on create; absent fields keep their value. */
export type UpdateMetaverseObjectTypeInput = Partial<CreateMetaverseObjectTypeInput>;

/** The deletion fields of a body as a change of the settings. */
const deletionChange = (input: UpdateMetaverseObjectTypeInput): DeletionRuleChange => ({
  deletionRule: input.deletionRule,
  deletionGracePeriodSeconds: input.deletionGracePeriod,
  deletionTriggerConnectedSystemIds:
    input.deletionTriggerConnectedSystemIds === undefined ? undefined : distinctIds(input.deletionTriggerConnectedSystemIds ?? []),
  deletionTriggerMode: input.deletionTriggerMode,
});

const settingsOf = (t: MetaverseObjectTypeEntity): DeletionRuleSettings => ({
  deletionRule: t.deletionRule as DeletionRule,
  deletionGracePeriodSeconds: t.deletionGracePeriodSeconds,
  deletionTriggerConnectedSystemIds: t.deletionTriggerConnectedSystemIds,
  deletionTriggerMode: t.deletionTriggerMode as DeletionTriggerMode,
});

const deletionDetails = (s: DeletionRuleSettings) => ({
  deletionRule: s.deletionRule,
  deletionGracePeriod: formatGracePeriod(s.deletionGracePeriodSeconds),
  deletionTriggerConnectedSystemIds: s.deletionTriggerConnectedSystemIds,
  deletionTriggerMode: s.deletionTriggerMode,
});

/** Metaverse object types (spec 4.7): built-in User and Group (deletion rule only) and custom types. */
@Injectable()
export class MetaverseObjectTypesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  list(): Promise<MetaverseObjectTypeView[]> {
    return loadObjectTypes(this.ds.manager);
  }

  async get(id: number, m: EntityManager = this.ds.manager): Promise<MetaverseObjectTypeDetailView> {
    const [type] = await loadObjectTypes(m, id);
    if (!type) throw DomainError.notFound('Metaverse object type', id);
    return { ...type, attributes: await loadAttributes(m, { objectTypeId: id }) };
  }

  async create(input: CreateMetaverseObjectTypeInput, initiator: Initiator): Promise<MetaverseObjectTypeDetailView> {
    const errors = new ValidationErrorCollector();
    const name = input.name.trim();
    const deletion = applyDeletionRule(DEFAULT_DELETION_RULE, deletionChange(input), errors);
    const attributeIds = distinctIds(input.attributeIds ?? []);
    try {
      return await this.ds.transaction(async (m) => {
        await this.checkUniqueName(m, name, null, errors);
        await checkIdsExist(
          m,
          'connected_system',
          deletion.deletionTriggerConnectedSystemIds,
          'deletionTriggerConnectedSystemIds',
          'Connected system',
          errors,
        );
        await checkIdsExist(m, 'metaverse_attribute', attributeIds, 'attributeIds', 'Metaverse attribute', errors);
        errors.throwIfAny();
        const saved = await m.getRepository(MetaverseObjectTypeEntity).save({
          name,
          description: storedDescription(input.description),
          isBuiltIn: false,
          ...deletion,
        });
        await new MetaverseSchemaStore(m).linkAttributes(saved.id, attributeIds);
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.MetaverseObjectType,
            operation: ActivityOperationType.Create,
            targetId: saved.id,
            targetName: saved.name,
            details: { ...deletionDetails(deletion), attributeIds },
          },
          m,
        );
        return this.get(saved.id, m);
      });
    } catch (e) {
      if (isUniqueViolation(e, 'uq_metaverse_object_type_name'))
        throw DomainError.validation('name', `An object type named "${name}" already exists.`);
      throw e;
    }
  }

  async update(id: number, input: UpdateMetaverseObjectTypeInput, initiator: Initiator): Promise<MetaverseObjectTypeDetailView> {
    try {
      return await this.ds.transaction(async (m) => {
        const type = await this.lock(m, id);
        const errors = new ValidationErrorCollector();
        const changed: string[] = [];
        if (input.name !== undefined) {
          const name = input.name.trim();
          if (name !== type.name) {
            if (type.isBuiltIn) errors.add('name', `${type.name} is a built-in object type and cannot be renamed.`);
            else if (await this.checkUniqueName(m, name, id, errors)) {
              type.name = name;
              changed.push('name');
            }
          }
        }
        if (input.description !== undefined) {
          const description = storedDescription(input.description);
          if (description !== type.description) {
            if (type.isBuiltIn) errors.add('description', `The description of the built-in ${type.name} type cannot be changed.`);
            else {
              type.description = description;
              changed.push('description');
            }
          }
        }
        const before = settingsOf(type);
        const deletion = applyDeletionRule(before, deletionChange(input), errors);
        if (input.deletionTriggerConnectedSystemIds !== undefined) {
          await checkIdsExist(
            m,
            'connected_system',
            deletion.deletionTriggerConnectedSystemIds,
            'deletionTriggerConnectedSystemIds',
            'Connected system',
            errors,
          );
        }
        for (const key of Object.keys(deletion) as Array<keyof DeletionRuleSettings>) {
          if (JSON.stringify(deletion[key]) !== JSON.stringify(before[key]))
            changed.push(key === 'deletionGracePeriodSeconds' ? 'deletionGracePeriod' : key);
        }
        const links = input.attributeIds === undefined ? undefined : await this.planLinks(m, type, input.attributeIds, errors);
        errors.throwIfAny();

        Object.assign(type, deletion, { lastUpdated: new Date() });
        await m.getRepository(MetaverseObjectTypeEntity).save(type);
        if (links) {
          const schema = new MetaverseSchemaStore(m);
          await schema.linkAttributes(id, links.added);
          await schema.unlinkAttributes(id, links.removed);
        }
        if (links && (links.added.length || links.removed.length)) changed.push('attributeIds');
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.MetaverseObjectType,
            operation: ActivityOperationType.Update,
            targetId: id,
            targetName: type.name,
            details: {
              changed,
              ...deletionDetails(deletion),
              ...(links ? { attributesAdded: links.added, attributesRemoved: links.removed } : {}),
            },
          },
          m,
        );
        return this.get(id, m);
      });
    } catch (e) {
      if (isUniqueViolation(e, 'uq_metaverse_object_type_name'))
        throw DomainError.validation('name', 'An object type with this name already exists.');
      throw e;
    }
  }

  async remove(id: number, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const type = await this.lock(m, id);
      if (type.isBuiltIn) throw DomainError.badRequest(`${type.name} is a built-in object type and cannot be deleted.`);
      const schema = new MetaverseSchemaStore(m);
      if (await schema.objectTypeInUse(id))
        throw DomainError.conflict(`Object type ${type.name} still has metaverse objects; delete them first.`, { objectTypeId: id });
      const rules = await schema.syncRulesOfObjectType(id);
      if (rules.length) {
        throw DomainError.conflict(
          `Object type ${type.name} is used by sync rule(s) ${rules.map((r) => `"${r.name}"`).join(', ')}; delete or change them first.`,
          { syncRules: rules },
        );
      }
      const attributeIds = (await schema.attributesOf(id)).map((a) => a.id);
      await m.getRepository(MetaverseObjectTypeEntity).delete({ id });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.MetaverseObjectType,
          operation: ActivityOperationType.Delete,
          targetId: id,
          targetName: type.name,
          details: { attributeIds },
        },
        m,
      );
    });
  }

  /** Works out which attribute links change, recording why a removal is not allowed. */
  private async planLinks(m: EntityManager, type: MetaverseObjectTypeEntity, attributeIds: number[], errors: ValidationErrorCollector) {
    const wanted = distinctIds(attributeIds);
    await checkIdsExist(m, 'metaverse_attribute', wanted, 'attributeIds', 'Metaverse attribute', errors);
    const current = await new MetaverseSchemaStore(m).attributesOf(type.id);
    const currentIds = new Set(current.map((a) => a.id));
    const wantedIds = new Set(wanted);
    const removed = current.filter((a) => !wantedIds.has(a.id));
    for (const a of removed) {
      const problem = await detachProblem(m, a, type);
      if (problem) errors.add('attributeIds', problem);
    }
    return { added: wanted.filter((aid) => !currentIds.has(aid)), removed: removed.map((a) => a.id).sort((a, b) => a - b) };
  }

  private async lock(m: EntityManager, id: number): Promise<MetaverseObjectTypeEntity> {
    const type = await m
      .getRepository(MetaverseObjectTypeEntity)
      .createQueryBuilder('t')
      .setLock('pessimistic_write')
      .where('t.id = :id', { id })
      .getOne();
    if (!type) throw DomainError.notFound('Metaverse object type', id);
    return type;
  }

  private async checkUniqueName(
    m: EntityManager,
    name: string,
    exceptId: number | null,
    errors: ValidationErrorCollector,
  ): Promise<boolean> {
    const clash = await new MetaverseSchemaStore(m).nameTaken('metaverse_object_type', name, exceptId);
    if (clash) errors.add('name', `An object type named "${clash}" already exists (names are compared ignoring case).`);
    return !clash;
  }
}
