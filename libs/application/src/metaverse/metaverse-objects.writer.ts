import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  ADMINISTRATOR_ROLE,
  AttributePlurality,
  BuiltInAttributeNames,
  coerceAttributeValue,
  displayNameFrom,
  DomainError,
  MetaverseObjectOrigin,
  MvoChangeType,
  ValidationErrorCollector,
} from '@meridian/domain';
import {
  AttributeDefinition,
  HistoryStore,
  MetaverseObjectEntity,
  MetaverseObjectStore,
  MetaverseSchemaStore,
  NamedRef,
  RoleStore,
  StoredAttributeValues,
} from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { SettingsService } from '../settings/settings.service';
import { lockLookupSchemaShared, refreshObjectLookups } from './metaverse-lookups';
import { MetaverseObjectsQuery, MetaverseObjectDetailView } from './metaverse-objects.query';

type AttributeValues = StoredAttributeValues;
type TypeAttribute = AttributeDefinition;
type ObjectTypeRef = NamedRef;

/**
 * The display name is indexed (lower(display_name)) and becomes the activity's target name
 * (varchar 500): longer values would fail in the database rather than as a validation error.
 */
export const MAX_DISPLAY_NAME_LENGTH = 400;

/**
 * Body of POST /metaverse/objects, validated: the type by name (`objectType`, not blank) or id (`objectTypeId`), and
 * attribute name → value(s). The values are checked here, against the schema of the type.
 */
export interface CreateMetaverseObjectInput {
  objectType?: string | null;
  objectTypeId?: number | null;
  attributes: Record<string, unknown>;
}

const isEmpty = (v: unknown) =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.every((x) => x === null || x === undefined || x === ''));

/**
 * Creates, updates and deletes `Internal` metaverse objects (e.g. administrators who sign in with
 * OIDC). Projected objects belong to synchronisation. Lookup rows of indexed attributes are rewritten
 * from the stored values in the same transaction.
 */
@Injectable()
export class MetaverseObjectsWriter {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly query: MetaverseObjectsQuery,
    private readonly settings: SettingsService,
  ) {}

  async create(input: CreateMetaverseObjectInput, initiator: Initiator): Promise<MetaverseObjectDetailView> {
    return this.ds.transaction(async (m) => {
      await lockLookupSchemaShared(m);
      const type = await this.resolveType(m, input);
      const attrs = await this.typeAttributes(m, type.id);
      const errors = new ValidationErrorCollector();
      const document = this.apply({}, input.attributes, type, attrs, errors);
      const displayName = this.displayName(document, attrs, errors);
      errors.throwIfAny();
      const saved = await m
        .getRepository(MetaverseObjectEntity)
        .save({ typeId: type.id, origin: MetaverseObjectOrigin.Internal, displayName, attributes: document });
      await refreshObjectLookups(m, [saved.id]);
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.MetaverseObject,
          operation: ActivityOperationType.Create,
          targetId: saved.id,
          targetName: displayName ?? saved.id,
          targetContext: type.name,
          details: { attributes: Object.keys(input.attributes).length },
        },
        m,
      );
      return this.query.get(saved.id, m);
    });
  }

  /**
   * Merges `attributes` into an Internal object: each named attribute is replaced (null, "" or []
   * removes it); attributes not named keep their values.
   */
  async update(id: string, attributes: Record<string, unknown>, initiator: Initiator): Promise<MetaverseObjectDetailView> {
    return this.ds.transaction(async (m) => {
      await lockLookupSchemaShared(m);
      const object = await this.lockInternal(m, id, 'changed');
      const [type] = await new MetaverseSchemaStore(m).objectTypeNames(object.typeId);
      const attrs = await this.typeAttributes(m, type.id);
      const errors = new ValidationErrorCollector();
      const document = this.apply({ ...object.attributes }, attributes, type, attrs, errors);
      const displayName = this.displayName(document, attrs, errors);
      errors.throwIfAny();
      await new MetaverseObjectStore(m).updateValues(id, document, displayName);
      await refreshObjectLookups(m, [id]);
      const byName = new Map(attrs.map((a) => [a.name.toLowerCase(), a.name]));
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.MetaverseObject,
          operation: ActivityOperationType.Update,
          targetId: id,
          targetName: displayName ?? id,
          targetContext: type.name,
          details: { changed: Object.keys(attributes).map((n) => byName.get(n.toLowerCase()) ?? n) },
        },
        m,
      );
      return this.query.get(id, m);
    });
  }

  /**
   * Deletes an Internal object: refused for the last member of the Administrator role; its lookup rows
   * and role memberships go with it, references to it are removed from other objects, and connector
   * space objects joined to it are disconnected. With metaverse change tracking on, a Deleted change
   * record (with the type's name, which the schema may later lose) commits with the deletion.
   */
  async remove(id: string, initiator: Initiator): Promise<void> {
    const tracking = await this.settings.changeTracking();
    await this.ds.transaction(async (m) => {
      const object = await this.lockInternal(m, id, 'deleted');
      // Lock the role row first, as RolesService does, so this and a member removal cannot both leave no administrator.
      const roles = new RoleStore(m);
      await roles.lockByName(ADMINISTRATOR_ROLE);
      const admins = await roles.membershipOf(ADMINISTRATOR_ROLE, id);
      if (admins.isMember && admins.memberCount <= 1) {
        throw DomainError.conflict(
          'This object is the last member of the Administrator role and cannot be deleted; add another administrator first.',
        );
      }
      const [type] = await new MetaverseSchemaStore(m).objectTypeNames(object.typeId);
      const objects = new MetaverseObjectStore(m);
      const referencing = await objects.removeReferencesTo(id);
      const disconnected = await objects.disconnectConnectorSpaceObjects(id);
      await objects.delete(id);
      const activity = await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.MetaverseObject,
          operation: ActivityOperationType.Delete,
          targetId: id,
          targetName: object.displayName ?? id,
          targetContext: type?.name ?? null,
          details: {
            referencesRemovedFrom: referencing,
            disconnectedConnectedSystemObjects: disconnected,
            wasAdministrator: admins.isMember,
          },
        },
        m,
      );
      if (tracking.mvo) {
        await new HistoryStore(m).insertMvoChange(
          {
            activityId: activity.id,
            runProfileId: null,
            initiatedByType: initiator.type,
            initiatedById: initiator.id,
            initiatedByName: initiator.name,
          },
          {
            metaverseObjectId: id,
            objectTypeId: object.typeId,
            displayName: object.displayName,
            changeType: MvoChangeType.Deleted,
            attributeChanges: null,
            connectedSystemId: null,
            connectedSystemObjectId: null,
            objectTypeName: type?.name ?? null,
          },
        );
      }
    });
  }

  private async lockInternal(m: EntityManager, id: string, verb: string): Promise<MetaverseObjectEntity> {
    const object = await m
      .getRepository(MetaverseObjectEntity)
      .createQueryBuilder('o')
      .setLock('pessimistic_write')
      .where('o.id = :id', { id })
      .getOne();
    if (!object) throw DomainError.notFound('Metaverse object', id);
    if (object.origin !== MetaverseObjectOrigin.Internal) {
      throw DomainError.badRequest(
        `Metaverse object ${id} is ${object.origin}: its values come from connected systems, so it cannot be ${verb} here.`,
      );
    }
    return object;
  }

  /** The object type named by objectTypeId or objectType (both: they must agree), locked against deletion. */
  private async resolveType(m: EntityManager, input: CreateMetaverseObjectInput): Promise<ObjectTypeRef> {
    const id = input.objectTypeId ?? null;
    const name = input.objectType?.trim() ?? null;
    // Either field names the type: a rule across two fields, so it is checked here rather than on the body.
    if (id === null && name === null) throw DomainError.validation('objectType', 'objectType (a type name) or objectTypeId is required.');
    const type = await new MetaverseSchemaStore(m).lockObjectTypeShared(id !== null ? { id } : { name: name! });
    if (!type)
      throw DomainError.validation(
        id !== null ? 'objectTypeId' : 'objectType',
        `Metaverse object type "${id !== null ? id : input.objectType}" does not exist.`,
      );
    if (id !== null && name !== null && type.name.toLowerCase() !== name.toLowerCase()) {
      throw DomainError.validation('objectType', `objectType "${input.objectType}" does not match objectTypeId ${id} (${type.name}).`);
    }
    return type;
  }

  private typeAttributes(m: EntityManager, typeId: number): Promise<TypeAttribute[]> {
    return new MetaverseSchemaStore(m).attributeDefinitionsOf(typeId);
  }

  /** Applies name → value(s) to a document (empty values remove the attribute), recording errors by `attributes.<name>`. */
  private apply(
    document: AttributeValues,
    values: Record<string, unknown>,
    type: ObjectTypeRef,
    attrs: TypeAttribute[],
    errors: ValidationErrorCollector,
  ): AttributeValues {
    const byName = new Map(attrs.map((a) => [a.name.toLowerCase(), a]));
    const seen = new Set<number>();
    for (const [name, raw] of Object.entries(values)) {
      const field = `attributes.${name}`;
      const attr = byName.get(name.toLowerCase());
      if (!attr) {
        errors.add(field, `"${name}" is not an attribute of ${type.name}.`);
        continue;
      }
      if (seen.has(attr.id)) {
        errors.add(field, `${attr.name} is given more than once (attribute names ignore case).`);
        continue;
      }
      seen.add(attr.id);
      if (isEmpty(raw)) {
        delete document[String(attr.id)];
        continue;
      }
      const list = (Array.isArray(raw) ? raw : [raw]).filter((v) => !isEmpty(v));
      if (attr.plurality === AttributePlurality.Single && list.length > 1) {
        errors.add(field, `"${name}" holds a single value.`);
        continue;
      }
      const stored: Array<{ v: unknown; s: null }> = [];
      for (const v of list) {
        const result = coerceAttributeValue(attr, v);
        if (result.ok) stored.push({ v: result.value, s: null });
        else errors.add(field, result.message);
      }
      document[String(attr.id)] = stored;
    }
    return document;
  }

  private displayName(document: AttributeValues, attrs: TypeAttribute[], errors: ValidationErrorCollector): string | null {
    const find = (name: string) => attrs.find((a) => a.name.toLowerCase() === name.toLowerCase());
    const displayAttr = find(BuiltInAttributeNames.DisplayName);
    const accountAttr = find(BuiltInAttributeNames.AccountName);
    const first = (a?: TypeAttribute) => (a ? document[String(a.id)]?.[0]?.v : undefined);
    const displayName = displayNameFrom(first(displayAttr), first(accountAttr));
    if (displayName !== null && displayName.length > MAX_DISPLAY_NAME_LENGTH) {
      const source = displayNameFrom(first(displayAttr), undefined) !== null ? displayAttr! : accountAttr!;
      errors.add(
        `attributes.${source.name}`,
        `${source.name} must be at most ${MAX_DISPLAY_NAME_LENGTH} characters: it is the object's display name.`,
      );
    }
    return displayName;
  }
}
