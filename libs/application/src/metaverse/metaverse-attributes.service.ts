import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  AttributeDataType,
  AttributePlurality,
  DomainError,
  INDEXABLE_ATTRIBUTE_TYPES,
  isIndexableAttributeType,
  ValidationErrorCollector,
} from '@meridian/domain';
import { MetaverseAttributeEntity, MetaverseSchemaStore } from '@meridian/persistence';
import { APP_CONFIG, AppConfig } from '@meridian/platform';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { backfillAttributeLookups, dropAttributeLookups, lockLookupSchemaExclusive } from './metaverse-lookups';
import {
  attributeHasValues,
  describeRules,
  detachProblem,
  SyncRuleRef,
  syncRulesNamingAttribute,
  syncRulesUsingAttribute,
} from './metaverse-schema.usage';
import { checkIdsExist, distinctIds, isUniqueViolation, storedDescription } from './metaverse-schema.validation';
import { MetaverseAttributeView, loadAttributes } from './metaverse-schema.views';

/**
 * Body of attribute create (docs/metaverse.md), validated: a name by the schema's rule (trimmed here), a description
 * of at most 1000 characters. What needs the database (unique names, existing object types) is checked here.
 */
export interface CreateMetaverseAttributeInput {
  name: string;
  description?: string | null;
  type: AttributeDataType;
  plurality?: AttributePlurality;
  /** The object types that have the attribute (replaces the set on update). */
  objectTypeIds?: number[];
  isIndexed?: boolean;
}

/** Body of attribute update, validated as on create; absent fields keep their value. */
export type UpdateMetaverseAttributeInput = Partial<CreateMetaverseAttributeInput>;

const INDEXABLE = INDEXABLE_ATTRIBUTE_TYPES.join(', ');

/**
 * Metaverse attributes (spec 4.7). Built-in attributes keep their name, description, type, plurality and
 * built-in object types; only isIndexed and links to further object types change. Custom attributes
 * change freely while unused, and are deleted only when unused.
 */
@Injectable()
export class MetaverseAttributesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(objectTypeId?: number): Promise<MetaverseAttributeView[]> {
    if (objectTypeId !== undefined) {
      const [type] = await new MetaverseSchemaStore(this.ds).objectTypeNames(objectTypeId);
      if (!type) throw DomainError.validation('objectTypeId', `Metaverse object type ${objectTypeId} does not exist.`);
    }
    return loadAttributes(this.ds.manager, { objectTypeId });
  }

  async get(id: number, m: EntityManager = this.ds.manager): Promise<MetaverseAttributeView> {
    const [attr] = await loadAttributes(m, { id });
    if (!attr) throw DomainError.notFound('Metaverse attribute', id);
    return attr;
  }

  async create(input: CreateMetaverseAttributeInput, initiator: Initiator): Promise<MetaverseAttributeView> {
    const errors = new ValidationErrorCollector();
    const name = input.name.trim();
    const { type, plurality = AttributePlurality.Single, isIndexed = false } = input;
    if (isIndexed && !isIndexableAttributeType(type)) errors.add('isIndexed', `Only ${INDEXABLE} attributes can be indexed.`);
    const objectTypeIds = distinctIds(input.objectTypeIds ?? []);
    try {
      return await this.ds.transaction(async (m) => {
        await this.checkUniqueName(m, name, null, errors);
        await checkIdsExist(m, 'metaverse_object_type', objectTypeIds, 'objectTypeIds', 'Metaverse object type', errors);
        errors.throwIfAny();
        const saved = await m.getRepository(MetaverseAttributeEntity).save({
          name,
          description: storedDescription(input.description),
          type,
          plurality,
          isBuiltIn: false,
          isIndexed,
        });
        await new MetaverseSchemaStore(m).linkObjectTypes(saved.id, objectTypeIds);
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.MetaverseAttribute,
            operation: ActivityOperationType.Create,
            targetId: saved.id,
            targetName: saved.name,
            details: { type: saved.type, plurality: saved.plurality, isIndexed: saved.isIndexed, objectTypeIds },
          },
          m,
        );
        return this.get(saved.id, m);
      });
    } catch (e) {
      if (isUniqueViolation(e, 'uq_metaverse_attribute_name'))
        throw DomainError.validation('name', `An attribute named "${name}" already exists.`);
      throw e;
    }
  }

  async update(id: number, input: UpdateMetaverseAttributeInput, initiator: Initiator): Promise<MetaverseAttributeView> {
    try {
      return await this.ds.transaction(async (m) => {
        // Indexing changes and object writes exclude each other (see lockLookupSchemaShared), so take the lock first.
        if (input.isIndexed !== undefined) await lockLookupSchemaExclusive(m);
        const attr = await this.lock(m, id);
        const errors = new ValidationErrorCollector();
        const changed: string[] = [];
        const fixed = (field: string) => errors.add(field, `${attr.name} is a built-in attribute: its ${field} cannot be changed.`);

        if (input.name !== undefined) {
          const name = input.name.trim();
          if (name !== attr.name) {
            if (attr.isBuiltIn) fixed('name');
            else if (await this.checkUniqueName(m, name, id, errors)) {
              const rules = await syncRulesNamingAttribute(m, attr.name);
              if (rules.length)
                errors.add(
                  'name',
                  `Mapping expressions of sync rule(s) ${describeRules(rules)} refer to mv["${attr.name}"]; change them before renaming.`,
                );
              else {
                attr.name = name;
                changed.push('name');
              }
            }
          }
        }
        if (input.description !== undefined) {
          const description = storedDescription(input.description);
          if (description !== attr.description) {
            if (attr.isBuiltIn) fixed('description');
            else {
              attr.description = description;
              changed.push('description');
            }
          }
        }
        const hasValues = () => attributeHasValues(m, id);
        const { type, plurality } = input;
        if (type !== undefined && type !== attr.type) {
          if (attr.isBuiltIn) fixed('type');
          else if (await hasValues()) errors.add('type', `Metaverse objects hold values for ${attr.name}; its type cannot change.`);
          else {
            attr.type = type;
            changed.push('type');
          }
        }
        if (plurality !== undefined && plurality !== attr.plurality) {
          if (attr.isBuiltIn) fixed('plurality');
          else if (await hasValues())
            errors.add('plurality', `Metaverse objects hold values for ${attr.name}; its plurality cannot change.`);
          else {
            attr.plurality = plurality;
            changed.push('plurality');
          }
        }

        const wasIndexed = attr.isIndexed;
        if (input.isIndexed !== undefined) {
          if (input.isIndexed || (await this.canUnindex(m, attr, errors))) attr.isIndexed = input.isIndexed;
        }
        if (attr.isIndexed && !isIndexableAttributeType(attr.type)) {
          errors.add(
            changed.includes('type') ? 'type' : 'isIndexed',
            `Only ${INDEXABLE} attributes can be indexed; ${attr.name} would be a ${attr.type}.`,
          );
        }
        const links = input.objectTypeIds === undefined ? undefined : await this.planLinks(m, attr, input.objectTypeIds, errors);
        errors.throwIfAny();

        let lookupRows: { added?: number; removed?: number } = {};
        if (attr.isIndexed !== wasIndexed) {
          changed.push('isIndexed');
          lookupRows = attr.isIndexed ? { added: await backfillAttributeLookups(m, id) } : { removed: await dropAttributeLookups(m, id) };
        }
        attr.lastUpdated = new Date();
        await m.getRepository(MetaverseAttributeEntity).save(attr);
        if (links) {
          const schema = new MetaverseSchemaStore(m);
          await schema.linkObjectTypes(id, links.added);
          await schema.unlinkObjectTypes(id, links.removed);
        }
        if (links && (links.added.length || links.removed.length)) changed.push('objectTypeIds');
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.MetaverseAttribute,
            operation: ActivityOperationType.Update,
            targetId: id,
            targetName: attr.name,
            details: {
              changed,
              type: attr.type,
              plurality: attr.plurality,
              isIndexed: attr.isIndexed,
              ...(links ? { objectTypesAdded: links.added, objectTypesRemoved: links.removed } : {}),
              ...(lookupRows.added !== undefined ? { lookupRowsAdded: lookupRows.added } : {}),
              ...(lookupRows.removed !== undefined ? { lookupRowsRemoved: lookupRows.removed } : {}),
            },
          },
          m,
        );
        return this.get(id, m);
      });
    } catch (e) {
      if (isUniqueViolation(e, 'uq_metaverse_attribute_name'))
        throw DomainError.validation('name', 'An attribute with this name already exists.');
      throw e;
    }
  }

  async remove(id: number, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const attr = await this.lock(m, id);
      if (attr.isBuiltIn) throw DomainError.badRequest(`${attr.name} is a built-in attribute and cannot be deleted.`);
      if (await attributeHasValues(m, id))
        throw DomainError.conflict(`Metaverse objects hold values for ${attr.name}; it cannot be deleted.`, { attributeId: id });
      const rules = await syncRulesUsingAttribute(m, attr);
      if (rules.length) {
        throw DomainError.conflict(
          `${attr.name} is used by sync rule(s) ${describeRules(rules)} (mappings, matching rules, scoping or expressions); change them first.`,
          { syncRules: rules },
        );
      }
      const objectTypeIds = (await new MetaverseSchemaStore(m).objectTypesOf(id)).map((t) => t.id);
      await m.getRepository(MetaverseAttributeEntity).delete({ id });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.MetaverseAttribute,
          operation: ActivityOperationType.Delete,
          targetId: id,
          targetName: attr.name,
          details: { type: attr.type, plurality: attr.plurality, objectTypeIds },
        },
        m,
      );
    });
  }

  /** Sign-in and matching look values up through the index, so an attribute they use stays indexed. */
  private async canUnindex(m: EntityManager, attr: MetaverseAttributeEntity, errors: ValidationErrorCollector): Promise<boolean> {
    if (!attr.isIndexed) return true;
    const subjectAttribute = this.config.oidc?.subjectAttribute ?? 'Subject Identifier';
    if (attr.name.toLowerCase() === subjectAttribute.toLowerCase()) {
      errors.add('isIndexed', `${attr.name} identifies users who sign in with OIDC (OIDC_SUBJECT_ATTRIBUTE) and must stay indexed.`);
      return false;
    }
    const rules: SyncRuleRef[] = await new MetaverseSchemaStore(m).syncRulesMatchingOn(attr.id);
    if (rules.length) {
      errors.add(
        'isIndexed',
        `Matching rules of sync rule(s) ${describeRules(rules)} look ${attr.name} up through the index; it must stay indexed.`,
      );
      return false;
    }
    return true;
  }

  private async planLinks(m: EntityManager, attr: MetaverseAttributeEntity, objectTypeIds: number[], errors: ValidationErrorCollector) {
    const wanted = distinctIds(objectTypeIds);
    await checkIdsExist(m, 'metaverse_object_type', wanted, 'objectTypeIds', 'Metaverse object type', errors);
    const current = await new MetaverseSchemaStore(m).objectTypesOf(attr.id);
    const currentIds = new Set(current.map((t) => t.id));
    const wantedIds = new Set(wanted);
    const removed = current.filter((t) => !wantedIds.has(t.id));
    for (const t of removed) {
      const problem = await detachProblem(m, attr, t);
      if (problem) errors.add('objectTypeIds', problem);
    }
    return { added: wanted.filter((tid) => !currentIds.has(tid)), removed: removed.map((t) => t.id).sort((a, b) => a - b) };
  }

  private async lock(m: EntityManager, id: number): Promise<MetaverseAttributeEntity> {
    const attr = await m
      .getRepository(MetaverseAttributeEntity)
      .createQueryBuilder('a')
      .setLock('pessimistic_write')
      .where('a.id = :id', { id })
      .getOne();
    if (!attr) throw DomainError.notFound('Metaverse attribute', id);
    return attr;
  }

  private async checkUniqueName(
    m: EntityManager,
    name: string,
    exceptId: number | null,
    errors: ValidationErrorCollector,
  ): Promise<boolean> {
    const clash = await new MetaverseSchemaStore(m).nameTaken('metaverse_attribute', name, exceptId);
    if (clash) errors.add('name', `An attribute named "${clash}" already exists (names are compared ignoring case).`);
    return !clash;
  }
}
