import { DeletionRule, DeletionTriggerMode, formatGracePeriod } from '@meridian/domain';
import { EntityManager } from 'typeorm';

interface ObjectTypeRow {
  id: number;
  name: string;
  description: string | null;
  is_built_in: boolean;
  deletion_rule: string;
  deletion_grace_period_seconds: number | null;
  deletion_trigger_connected_system_ids: number[];
  deletion_trigger_mode: string;
  created: Date;
  last_updated: Date | null;
  attribute_count: number;
}

interface AttributeRow {
  id: number;
  name: string;
  description: string | null;
  type: string;
  plurality: string;
  is_built_in: boolean;
  is_indexed: boolean;
  created: Date;
  last_updated: Date | null;
  object_types: Array<{ id: number; name: string }>;
}

export interface MetaverseObjectTypeView {
  id: number;
  name: string;
  description: string | null;
  isBuiltIn: boolean;
  deletionRule: DeletionRule;
  deletionGracePeriod: string | null;
  deletionTriggerConnectedSystemIds: number[];
  deletionTriggerMode: DeletionTriggerMode;
  attributeCount: number;
  created: string;
  lastUpdated: string | null;
}

export interface MetaverseAttributeView {
  id: number;
  name: string;
  description: string | null;
  type: string;
  plurality: string;
  isBuiltIn: boolean;
  isIndexed: boolean;
  objectTypeIds: number[];
  objectTypes: Array<{ id: number; name: string }>;
  created: string;
  lastUpdated: string | null;
}

export interface MetaverseObjectTypeDetailView extends MetaverseObjectTypeView {
  attributes: MetaverseAttributeView[];
}

// Trigger ids of connected systems deleted since are left out (connected_system has no FK to them).
const OBJECT_TYPE_SELECT = `
  SELECT t.id, t.name, t.description, t.is_built_in, t.deletion_rule, t.deletion_grace_period_seconds, t.deletion_trigger_mode,
         t.created, t.last_updated,
         ARRAY(SELECT cs.id FROM connected_system cs WHERE cs.id = ANY(t.deletion_trigger_connected_system_ids) ORDER BY cs.id) AS deletion_trigger_connected_system_ids,
         (SELECT count(*)::int FROM metaverse_object_type_attribute ta WHERE ta.object_type_id = t.id) AS attribute_count
    FROM metaverse_object_type t`;

const ATTRIBUTE_SELECT = `
  SELECT a.id, a.name, a.description, a.type, a.plurality, a.is_built_in, a.is_indexed, a.created, a.last_updated,
         COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.id)
                     FROM metaverse_object_type_attribute ta JOIN metaverse_object_type t ON t.id = ta.object_type_id
                    WHERE ta.attribute_id = a.id), '[]') AS object_types
    FROM metaverse_attribute a`;

function objectTypeView(r: ObjectTypeRow): MetaverseObjectTypeView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    isBuiltIn: r.is_built_in,
    deletionRule: r.deletion_rule as DeletionRule,
    deletionGracePeriod: formatGracePeriod(r.deletion_grace_period_seconds),
    deletionTriggerConnectedSystemIds: r.deletion_trigger_connected_system_ids,
    deletionTriggerMode: r.deletion_trigger_mode as DeletionTriggerMode,
    attributeCount: r.attribute_count,
    created: r.created.toISOString(),
    lastUpdated: r.last_updated?.toISOString() ?? null,
  };
}

function attributeView(r: AttributeRow): MetaverseAttributeView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    type: r.type,
    plurality: r.plurality,
    isBuiltIn: r.is_built_in,
    isIndexed: r.is_indexed,
    objectTypeIds: r.object_types.map((t) => t.id),
    objectTypes: r.object_types,
    created: r.created.toISOString(),
    lastUpdated: r.last_updated?.toISOString() ?? null,
  };
}

/** Object types in id order (User, Group, then custom types as created); one when `id` is given. */
export async function loadObjectTypes(m: EntityManager, id?: number): Promise<MetaverseObjectTypeView[]> {
  const rows: ObjectTypeRow[] =
    id === undefined ? await m.query(`${OBJECT_TYPE_SELECT} ORDER BY t.id`) : await m.query(`${OBJECT_TYPE_SELECT} WHERE t.id = $1`, [id]);
  return rows.map(objectTypeView);
}

/** Attributes by name; only those of one object type, or one attribute, when asked. */
export async function loadAttributes(
  m: EntityManager,
  filter: { objectTypeId?: number; id?: number } = {},
): Promise<MetaverseAttributeView[]> {
  if (filter.id !== undefined) return (await m.query(`${ATTRIBUTE_SELECT} WHERE a.id = $1`, [filter.id])).map(attributeView);
  if (filter.objectTypeId !== undefined) {
    return (
      await m.query(
        `${ATTRIBUTE_SELECT} WHERE EXISTS (SELECT 1 FROM metaverse_object_type_attribute x WHERE x.attribute_id = a.id AND x.object_type_id = $1) ORDER BY lower(a.name), a.id`,
        [filter.objectTypeId],
      )
    ).map(attributeView);
  }
  return (await m.query(`${ATTRIBUTE_SELECT} ORDER BY lower(a.name), a.id`)).map(attributeView);
}
