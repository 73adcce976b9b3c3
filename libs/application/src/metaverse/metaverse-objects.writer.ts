import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, AttributeDataType, AttributePlurality, BuiltInAttributeNames, DomainError,
  MetaverseObjectOrigin, ValidationErrorCollector } from '@meridian/domain';
import { MetaverseAttributeEntity, MetaverseObjectEntity, MetaverseObjectLookupEntity, MetaverseObjectTypeEntity } from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';

type AttributeValues = Record<string, Array<{ v: unknown; s?: number | null }>>;

const LOOKUP_TYPES = new Set<string>([AttributeDataType.String, AttributeDataType.Text, AttributeDataType.Guid, AttributeDataType.Integer, AttributeDataType.LongNumber]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An ISO 8601 date or date-time (Date() alone would take "1" as the year 2001). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };
/**
 * The display name is indexed (btree, lower(display_name)) and becomes the activity's target name
 * (varchar 500): longer values would fail in the database rather than as a validation error.
 */
export const MAX_DISPLAY_NAME_LENGTH = 400;

/** Creates `Internal` metaverse objects (e.g. administrators who sign in with OIDC). */
@Injectable()
export class MetaverseObjectsWriter {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  async createInternal(objectTypeName: string, values: Record<string, unknown>, initiator: Initiator): Promise<{ id: string; displayName: string | null }> {
    return this.ds.transaction(async (m) => {
      const type = await m.getRepository(MetaverseObjectTypeEntity).createQueryBuilder('t').where('lower(t.name) = lower(:n)', { n: objectTypeName }).getOne();
      if (!type) throw DomainError.validation('objectType', `Metaverse object type "${objectTypeName}" does not exist.`);
      const attrs: MetaverseAttributeEntity[] = await m.query(
        `SELECT a.id, a.name, a.type, a.plurality FROM metaverse_attribute a JOIN metaverse_object_type_attribute ta ON ta.attribute_id = a.id WHERE ta.object_type_id = $1`, [type.id]);
      const byName = new Map(attrs.map((a) => [a.name.toLowerCase(), a]));
      const errors = new ValidationErrorCollector();
      const document: AttributeValues = {};
      const lookups: Array<{ attributeId: number; value: string }> = [];
      for (const [name, raw] of Object.entries(values)) {
        const attr = byName.get(name.toLowerCase());
        if (!attr) { errors.add(`attributes.${name}`, `"${name}" is not an attribute of ${type.name}.`); continue; }
        if (raw === null || raw === undefined || raw === '') continue;
        const list = Array.isArray(raw) ? raw : [raw];
        if (attr.plurality === AttributePlurality.Single && list.length > 1) { errors.add(`attributes.${name}`, `"${name}" holds a single value.`); continue; }
        const typed = list.map((v) => this.coerce(attr, v, errors));
        document[String(attr.id)] = typed.map((v) => ({ v, s: null }));
        if (LOOKUP_TYPES.has(attr.type)) for (const v of typed) lookups.push({ attributeId: attr.id, value: String(v).toLowerCase().slice(0, 512) });
      }
      errors.throwIfAny();
      const displayAttr = byName.get(BuiltInAttributeNames.DisplayName.toLowerCase());
      const accountAttr = byName.get(BuiltInAttributeNames.AccountName.toLowerCase());
      const first = (a?: MetaverseAttributeEntity) => (a ? (document[String(a.id)]?.[0]?.v as string | undefined) : undefined);
      const displayName = first(displayAttr) ?? first(accountAttr) ?? null;
      if (displayName !== null && displayName.length > MAX_DISPLAY_NAME_LENGTH) {
        const source = first(displayAttr) !== undefined ? displayAttr! : accountAttr!;
        throw DomainError.validation(`attributes.${source.name}`, `${source.name} must be at most ${MAX_DISPLAY_NAME_LENGTH} characters: it is the object's display name.`);
      }
      const saved = await m.getRepository(MetaverseObjectEntity).save({ typeId: type.id, origin: MetaverseObjectOrigin.Internal, displayName, attributes: document });
      await this.writeLookups(m, saved.id, lookups);
      await this.activities.recordChange({ initiator, targetType: ActivityTargetType.MetaverseObject, operation: ActivityOperationType.Create,
        targetId: saved.id, targetName: displayName ?? saved.id, targetContext: type.name }, m);
      return { id: saved.id, displayName };
    });
  }

  private async writeLookups(m: EntityManager, objectId: string, lookups: Array<{ attributeId: number; value: string }>): Promise<void> {
    if (!lookups.length) return;
    await m.createQueryBuilder().insert().into(MetaverseObjectLookupEntity)
      .values(lookups.map((l) => ({ attributeId: l.attributeId, valueNormalised: l.value, objectId }))).orIgnore().execute();
  }

  private coerce(attr: MetaverseAttributeEntity, v: unknown, errors: ValidationErrorCollector): unknown {
    const field = `attributes.${attr.name}`;
    switch (attr.type) {
      case AttributeDataType.Integer:
      case AttributeDataType.LongNumber:
      case AttributeDataType.Decimal:
        if (typeof v !== 'number' || !Number.isFinite(v) || (attr.type !== AttributeDataType.Decimal && !Number.isSafeInteger(v))) errors.add(field, `${attr.name} must be a number.`);
        else if (attr.type === AttributeDataType.Integer && (v < INT32.min || v > INT32.max)) errors.add(field, `${attr.name} must be from ${INT32.min} to ${INT32.max}.`);
        return v;
      case AttributeDataType.Boolean:
        if (typeof v !== 'boolean') errors.add(field, `${attr.name} must be true or false.`);
        return v;
      case AttributeDataType.DateTime: {
        const d = typeof v === 'string' && ISO_DATE_TIME.test(v.trim()) ? new Date(v.trim()) : new Date(NaN);
        if (Number.isNaN(d.getTime())) errors.add(field, `${attr.name} must be an ISO 8601 date-time.`);
        return Number.isNaN(d.getTime()) ? null : d.toISOString();
      }
      case AttributeDataType.Reference:
        if (typeof v !== 'string' || !UUID.test(v)) errors.add(field, `${attr.name} must be a metaverse object id.`);
        return typeof v === 'string' ? v.toLowerCase() : v;
      case AttributeDataType.Guid:
        if (typeof v !== 'string' || !UUID.test(v.trim())) errors.add(field, `${attr.name} must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx).`);
        return typeof v === 'string' ? v.trim().toLowerCase() : v;
      default:
        if (typeof v !== 'string') errors.add(field, `${attr.name} must be text.`);
        else if (v.length > 4000) errors.add(field, `${attr.name} must be at most 4000 characters.`);
        return typeof v === 'string' ? v.trim() : v;
    }
  }
}
