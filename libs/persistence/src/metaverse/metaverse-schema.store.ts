import { AttributeDataType, AttributePlurality, DeletionRule, DeletionTriggerMode, SyncRuleDirection } from '@meridian/domain';
import type { SqlRunner } from '../sql/sql-runner';

/** An object type as the schema API shows it. */
export interface ObjectTypeRow {
  id: number;
  name: string;
  description: string | null;
  isBuiltIn: boolean;
  deletionRule: DeletionRule;
  deletionGracePeriodSeconds: number | null;
  /** Ids of connected systems deleted since are left out (connected_system has no FK to them). */
  deletionTriggerConnectedSystemIds: number[];
  deletionTriggerMode: DeletionTriggerMode;
  created: Date;
  lastUpdated: Date | null;
  attributeCount: number;
}

/** An attribute as the schema API shows it, with the object types that have it (by id). */
export interface AttributeRow {
  id: number;
  name: string;
  description: string | null;
  type: AttributeDataType;
  plurality: AttributePlurality;
  isBuiltIn: boolean;
  isIndexed: boolean;
  created: Date;
  lastUpdated: Date | null;
  objectTypes: Array<{ id: number; name: string }>;
}

/** What object writers and readers need of an attribute. */
export interface AttributeDefinition {
  id: number;
  name: string;
  type: AttributeDataType;
  plurality: AttributePlurality;
  isIndexed: boolean;
}

/** One side of a type–attribute link. */
export interface SchemaMember {
  id: number;
  name: string;
  isBuiltIn: boolean;
}

export interface NamedRef {
  id: number;
  name: string;
}

/** Tables whose ids the schema API accepts in lists. */
export type SchemaIdTable = 'metaverse_object_type' | 'metaverse_attribute' | 'connected_system';

const OBJECT_TYPE_SELECT = `
  SELECT t.id, t.name, t.description, t.is_built_in AS "isBuiltIn", t.deletion_rule AS "deletionRule",
         t.deletion_grace_period_seconds AS "deletionGracePeriodSeconds", t.deletion_trigger_mode AS "deletionTriggerMode",
         t.created, t.last_updated AS "lastUpdated",
         ARRAY(SELECT cs.id FROM connected_system cs WHERE cs.id = ANY(t.deletion_trigger_connected_system_ids) ORDER BY cs.id) AS "deletionTriggerConnectedSystemIds",
         (SELECT count(*)::int FROM metaverse_object_type_attribute ta WHERE ta.object_type_id = t.id) AS "attributeCount"
    FROM metaverse_object_type t`;

const ATTRIBUTE_SELECT = `
  SELECT a.id, a.name, a.description, a.type, a.plurality, a.is_built_in AS "isBuiltIn", a.is_indexed AS "isIndexed", a.created,
         a.last_updated AS "lastUpdated",
         COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.id)
                     FROM metaverse_object_type_attribute ta JOIN metaverse_object_type t ON t.id = ta.object_type_id
                    WHERE ta.attribute_id = a.id), '[]') AS "objectTypes"
    FROM metaverse_attribute a`;

/** The metaverse schema: object types, attributes, their links, and who uses them. */
export class MetaverseSchemaStore {
  constructor(private readonly db: SqlRunner) {}

  /** Object types in id order (User, Group, then custom types as created); one when `id` is given. */
  async objectTypes(id?: number): Promise<ObjectTypeRow[]> {
    return id === undefined
      ? this.db.query<ObjectTypeRow[]>(`${OBJECT_TYPE_SELECT} ORDER BY t.id`)
      : this.db.query<ObjectTypeRow[]>(`${OBJECT_TYPE_SELECT} WHERE t.id = $1`, [id]);
  }

  /** Attributes by name; only those of one object type, or one attribute, when asked. */
  async attributes(filter: { objectTypeId?: number; id?: number } = {}): Promise<AttributeRow[]> {
    if (filter.id !== undefined) return this.db.query<AttributeRow[]>(`${ATTRIBUTE_SELECT} WHERE a.id = $1`, [filter.id]);
    if (filter.objectTypeId !== undefined) {
      return this.db.query<AttributeRow[]>(
        `${ATTRIBUTE_SELECT} WHERE EXISTS (SELECT 1 FROM metaverse_object_type_attribute x WHERE x.attribute_id = a.id AND x.object_type_id = $1) ORDER BY lower(a.name), a.id`,
        [filter.objectTypeId],
      );
    }
    return this.db.query<AttributeRow[]>(`${ATTRIBUTE_SELECT} ORDER BY lower(a.name), a.id`);
  }

  /** Id and name of every object type, by id; of one when `id` is given. */
  async objectTypeNames(id?: number): Promise<NamedRef[]> {
    return id === undefined
      ? this.db.query<NamedRef[]>(`SELECT id, name FROM metaverse_object_type ORDER BY id`)
      : this.db.query<NamedRef[]>(`SELECT id, name FROM metaverse_object_type WHERE id = $1`, [id]);
  }

  /**
   * The object type with this id, or with this name ignoring case, locked against deletion for this
   * transaction; null when there is none.
   */
  async lockObjectTypeShared(by: { id: number } | { name: string }): Promise<NamedRef | null> {
    const [type] =
      'id' in by
        ? await this.db.query<NamedRef[]>(`SELECT id, name FROM metaverse_object_type WHERE id = $1 FOR KEY SHARE`, [by.id])
        : await this.db.query<NamedRef[]>(`SELECT id, name FROM metaverse_object_type WHERE lower(name) = lower($1) FOR KEY SHARE`, [
            by.name,
          ]);
    return type ?? null;
  }

  /** Every attribute's definition. */
  async attributeDefinitions(): Promise<AttributeDefinition[]> {
    return this.db.query<AttributeDefinition[]>(`SELECT id, name, type, plurality, is_indexed AS "isIndexed" FROM metaverse_attribute`);
  }

  /** Definitions of the attributes an object type has. */
  async attributeDefinitionsOf(objectTypeId: number): Promise<AttributeDefinition[]> {
    return this.db.query<AttributeDefinition[]>(
      `SELECT a.id, a.name, a.type, a.plurality, a.is_indexed AS "isIndexed"
         FROM metaverse_attribute a JOIN metaverse_object_type_attribute ta ON ta.attribute_id = a.id WHERE ta.object_type_id = $1`,
      [objectTypeId],
    );
  }

  /** The ids among `ids` that `table` does not hold. */
  async missingIds(table: SchemaIdTable, ids: readonly number[]): Promise<number[]> {
    if (!ids.length) return [];
    const rows = await this.db.query<Array<{ id: number }>>(`SELECT id FROM ${table} WHERE id = ANY($1::int[])`, [ids]);
    const found = new Set(rows.map((r) => r.id));
    return ids.filter((id) => !found.has(id));
  }

  /** The name of another object type (or attribute) with this name ignoring case, or null. */
  async nameTaken(table: 'metaverse_object_type' | 'metaverse_attribute', name: string, exceptId: number | null): Promise<string | null> {
    const [clash] = await this.db.query<Array<{ name: string }>>(
      `SELECT name FROM ${table} WHERE lower(name) = lower($1) AND id IS DISTINCT FROM $2`,
      [name, exceptId],
    );
    return clash?.name ?? null;
  }

  /** Gives an object type these attributes (links that exist already stay). */
  async linkAttributes(objectTypeId: number, attributeIds: readonly number[]): Promise<void> {
    if (!attributeIds.length) return;
    await this.db.query(
      `INSERT INTO metaverse_object_type_attribute (object_type_id, attribute_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`,
      [objectTypeId, attributeIds],
    );
  }

  /** Takes these attributes off an object type. */
  async unlinkAttributes(objectTypeId: number, attributeIds: readonly number[]): Promise<void> {
    if (!attributeIds.length) return;
    await this.db.query(`DELETE FROM metaverse_object_type_attribute WHERE object_type_id = $1 AND attribute_id = ANY($2::int[])`, [
      objectTypeId,
      attributeIds,
    ]);
  }

  /** Gives these object types an attribute (links that exist already stay). */
  async linkObjectTypes(attributeId: number, objectTypeIds: readonly number[]): Promise<void> {
    if (!objectTypeIds.length) return;
    await this.db.query(
      `INSERT INTO metaverse_object_type_attribute (object_type_id, attribute_id) SELECT unnest($1::int[]), $2 ON CONFLICT DO NOTHING`,
      [objectTypeIds, attributeId],
    );
  }

  /** Takes an attribute off these object types. */
  async unlinkObjectTypes(attributeId: number, objectTypeIds: readonly number[]): Promise<void> {
    if (!objectTypeIds.length) return;
    await this.db.query(`DELETE FROM metaverse_object_type_attribute WHERE attribute_id = $1 AND object_type_id = ANY($2::int[])`, [
      attributeId,
      objectTypeIds,
    ]);
  }

  /** The attributes an object type has. */
  async attributesOf(objectTypeId: number): Promise<SchemaMember[]> {
    return this.db.query<SchemaMember[]>(
      `SELECT a.id, a.name, a.is_built_in AS "isBuiltIn" FROM metaverse_object_type_attribute ta JOIN metaverse_attribute a ON a.id = ta.attribute_id
        WHERE ta.object_type_id = $1 ORDER BY a.id`,
      [objectTypeId],
    );
  }

  /** The object types that have an attribute. */
  async objectTypesOf(attributeId: number): Promise<SchemaMember[]> {
    return this.db.query<SchemaMember[]>(
      `SELECT t.id, t.name, t.is_built_in AS "isBuiltIn" FROM metaverse_object_type_attribute ta JOIN metaverse_object_type t ON t.id = ta.object_type_id
        WHERE ta.attribute_id = $1 ORDER BY t.id`,
      [attributeId],
    );
  }

  /** Whether any metaverse object is of this type. */
  async objectTypeInUse(objectTypeId: number): Promise<boolean> {
    const [{ found }] = await this.db.query<Array<{ found: boolean }>>(
      `SELECT EXISTS (SELECT 1 FROM metaverse_object WHERE type_id = $1) AS found`,
      [objectTypeId],
    );
    return found;
  }

  /** Whether any metaverse object (of one type, when given) holds a value for the attribute. */
  async attributeHasValues(attributeId: number, objectTypeId?: number): Promise<boolean> {
    const [{ found }] =
      objectTypeId === undefined
        ? await this.db.query<Array<{ found: boolean }>>(`SELECT EXISTS (SELECT 1 FROM metaverse_object WHERE attributes ? $1) AS found`, [
            String(attributeId),
          ])
        : await this.db.query<Array<{ found: boolean }>>(
            `SELECT EXISTS (SELECT 1 FROM metaverse_object WHERE type_id = $2 AND attributes ? $1) AS found`,
            [String(attributeId), objectTypeId],
          );
    return found;
  }

  /** Sync rules of an object type, by id. */
  async syncRulesOfObjectType(objectTypeId: number): Promise<NamedRef[]> {
    return this.db.query<NamedRef[]>(`SELECT id, name FROM sync_rule WHERE metaverse_object_type_id = $1 ORDER BY id`, [objectTypeId]);
  }

  /**
   * Sync rules that use a metaverse attribute by id: as a mapping target or source, in a matching rule,
   * or in the scoping criteria of an export rule. Limited to rules of one metaverse object type when
   * `objectTypeId` is given.
   */
  async syncRulesReferencingAttribute(attributeId: number, objectTypeId?: number): Promise<NamedRef[]> {
    return this.db.query<NamedRef[]>(
      `SELECT r.id, r.name FROM sync_rule r
        WHERE (EXISTS (SELECT 1 FROM sync_rule_mapping mp WHERE mp.sync_rule_id = r.id AND mp.target_metaverse_attribute_id = $1)
           OR EXISTS (SELECT 1 FROM sync_rule_mapping mp JOIN sync_rule_mapping_source s ON s.mapping_id = mp.id
                       WHERE mp.sync_rule_id = r.id AND s.metaverse_attribute_id = $1)
           OR EXISTS (SELECT 1 FROM sync_rule_matching_rule mr WHERE mr.sync_rule_id = r.id AND mr.metaverse_attribute_id = $1)
           OR (r.direction = '${SyncRuleDirection.Export}' AND jsonb_path_exists(r.scoping_criteria, 'lax $.**.attributeId ? (@ == $id)', jsonb_build_object('id', $1::int))))
          AND ($2::int IS NULL OR r.metaverse_object_type_id = $2)
        ORDER BY r.id`,
      [attributeId, objectTypeId ?? null],
    );
  }

  /**
   * Mapping source expressions that contain `text` ignoring case (of rules of one object type, when
   * given), by sync rule id: candidates for an expression naming an attribute.
   */
  async mappingExpressionsContaining(text: string, objectTypeId?: number): Promise<Array<NamedRef & { expression: string }>> {
    return this.db.query<Array<NamedRef & { expression: string }>>(
      `SELECT r.id, r.name, s.expression FROM sync_rule_mapping_source s
         JOIN sync_rule_mapping mp ON mp.id = s.mapping_id JOIN sync_rule r ON r.id = mp.sync_rule_id
        WHERE s.expression IS NOT NULL AND strpos(lower(s.expression), lower($1)) > 0
          AND ($2::int IS NULL OR r.metaverse_object_type_id = $2)
        ORDER BY r.id`,
      [text, objectTypeId ?? null],
    );
  }

  /** Sync rules whose matching rules look the attribute up. */
  async syncRulesMatchingOn(attributeId: number): Promise<NamedRef[]> {
    return this.db.query<NamedRef[]>(
      `SELECT DISTINCT r.id, r.name FROM sync_rule_matching_rule mr JOIN sync_rule r ON r.id = mr.sync_rule_id
        WHERE mr.metaverse_attribute_id = $1 ORDER BY r.id`,
      [attributeId],
    );
  }
}
