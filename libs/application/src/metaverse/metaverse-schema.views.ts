import { DeletionRule, DeletionTriggerMode, formatGracePeriod } from '@meridian/domain';
import { AttributeRow, MetaverseSchemaStore, ObjectTypeRow } from '@meridian/persistence';
import { EntityManager } from 'typeorm';

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

function objectTypeView(r: ObjectTypeRow): MetaverseObjectTypeView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    isBuiltIn: r.isBuiltIn,
    deletionRule: r.deletionRule,
    deletionGracePeriod: formatGracePeriod(r.deletionGracePeriodSeconds),
    deletionTriggerConnectedSystemIds: r.deletionTriggerConnectedSystemIds,
    deletionTriggerMode: r.deletionTriggerMode,
    attributeCount: r.attributeCount,
    created: r.created.toISOString(),
    lastUpdated: r.lastUpdated?.toISOString() ?? null,
  };
}

function attributeView(r: AttributeRow): MetaverseAttributeView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    type: r.type,
    plurality: r.plurality,
    isBuiltIn: r.isBuiltIn,
    isIndexed: r.isIndexed,
    objectTypeIds: r.objectTypes.map((t) => t.id),
    objectTypes: r.objectTypes,
    created: r.created.toISOString(),
    lastUpdated: r.lastUpdated?.toISOString() ?? null,
  };
}

/** Object types in id order (User, Group, then custom types as created); one when `id` is given. */
export async function loadObjectTypes(m: EntityManager, id?: number): Promise<MetaverseObjectTypeView[]> {
  return (await new MetaverseSchemaStore(m).objectTypes(id)).map(objectTypeView);
}

/** Attributes by name; only those of one object type, or one attribute, when asked. */
export async function loadAttributes(
  m: EntityManager,
  filter: { objectTypeId?: number; id?: number } = {},
): Promise<MetaverseAttributeView[]> {
  return (await new MetaverseSchemaStore(m).attributes(filter)).map(attributeView);
}
