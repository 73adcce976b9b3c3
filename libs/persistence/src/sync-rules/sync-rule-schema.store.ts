import { AttributeDataType, AttributePlurality } from '@meridian/domain';
import type { SqlRunner } from '../sql/sql-runner';

/** A connected-system attribute as the sync-rule services check it. */
export interface SyncRuleCsAttributeRow {
  id: number;
  name: string;
  type: AttributeDataType;
  plurality: AttributePlurality;
  writability: string;
  selected: boolean;
}

/** A metaverse attribute of a metaverse object type. */
export interface SyncRuleMvAttributeRow {
  id: number;
  name: string;
  type: AttributeDataType;
  plurality: AttributePlurality;
  isIndexed: boolean;
}

/** A connected-system object type with what decides whether a rule may use it. */
export interface SyncRuleCsObjectTypeRow {
  id: number;
  name: string;
  connectedSystemId: number;
  selected: boolean;
  presentInSchema: boolean;
}

/** A metaverse attribute, and whether it belongs to the object type asked about. */
export interface MetaverseAttributeOfTypeRow {
  id: number;
  name: string;
  ofType: boolean;
}

/** The object types and attributes sync rules, their mappings, matching rules and criteria are checked against. */
export class SyncRuleSchemaStore {
  constructor(private readonly db: SqlRunner) {}

  /** The attributes of a connected-system object type still present in its schema, by id. */
  async csAttributes(objectTypeId: number): Promise<SyncRuleCsAttributeRow[]> {
    return this.db.query<SyncRuleCsAttributeRow[]>(
      `SELECT id, name, type, plurality, writability, selected FROM connected_system_attribute
        WHERE object_type_id = $1 AND present_in_schema ORDER BY id`,
      [objectTypeId],
    );
  }

  /** The attributes of a metaverse object type, by id. */
  async mvAttributes(objectTypeId: number): Promise<SyncRuleMvAttributeRow[]> {
    return this.db.query<SyncRuleMvAttributeRow[]>(
      `SELECT a.id, a.name, a.type, a.plurality, a.is_indexed AS "isIndexed" FROM metaverse_attribute a
         JOIN metaverse_object_type_attribute ta ON ta.attribute_id = a.id
        WHERE ta.object_type_id = $1 ORDER BY a.id`,
      [objectTypeId],
    );
  }

  async csObjectType(id: number): Promise<SyncRuleCsObjectTypeRow | null> {
    const [type] = await this.db.query<SyncRuleCsObjectTypeRow[]>(
      `SELECT id, name, connected_system_id AS "connectedSystemId", selected, present_in_schema AS "presentInSchema"
         FROM connected_system_object_type WHERE id = $1`,
      [id],
    );
    return type ?? null;
  }

  async mvObjectType(id: number): Promise<{ id: number; name: string } | null> {
    const [type] = await this.db.query<Array<{ id: number; name: string }>>(`SELECT id, name FROM metaverse_object_type WHERE id = $1`, [
      id,
    ]);
    return type ?? null;
  }

  /** A metaverse attribute with whether it belongs to the object type (false without one). */
  async mvAttributeOfType(id: number, objectTypeId: number | undefined): Promise<MetaverseAttributeOfTypeRow | null> {
    const [attribute] = await this.db.query<MetaverseAttributeOfTypeRow[]>(
      `SELECT a.id, a.name, EXISTS (SELECT 1 FROM metaverse_object_type_attribute ta WHERE ta.attribute_id = a.id AND ta.object_type_id = $2) AS "ofType"
         FROM metaverse_attribute a WHERE a.id = $1`,
      [id, objectTypeId ?? 0],
    );
    return attribute ?? null;
  }

  /** Names of connected-system attributes by id (only those that exist). */
  async csAttributeNames(ids: readonly number[]): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    const rows = await this.db.query<Array<{ id: number; name: string }>>(
      `SELECT id, name FROM connected_system_attribute WHERE id = ANY($1::int[])`,
      [[...ids]],
    );
    return new Map(rows.map((r) => [r.id, r.name]));
  }
}
