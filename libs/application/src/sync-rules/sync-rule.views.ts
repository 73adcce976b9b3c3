import { deriveMappingSourceType, MappingSourceType, ScopingGroup, SyncRuleDirection } from '@meridian/domain';
import { EntityManager } from 'typeorm';

export interface MappingSourceView {
  id: number;
  order: number;
  connectedSystemAttributeId: number | null;
  connectedSystemAttributeName: string | null;
  metaverseAttributeId: number | null;
  metaverseAttributeName: string | null;
  expression: string | null;
}

/** An attribute mapping (spec 2.12) with Meridian's extensions (priority, nullIsValue, initialExportOnly, enabled). */
export interface MappingView {
  id: number;
  syncRuleId: number;
  created: string;
  targetMetaverseAttributeId: number | null;
  targetMetaverseAttributeName: string | null;
  targetConnectedSystemAttributeId: number | null;
  targetConnectedSystemAttributeName: string | null;
  sourceType: MappingSourceType;
  sources: MappingSourceView[];
  priority: number | null;
  nullIsValue: boolean;
  initialExportOnly: boolean;
  enabled: boolean;
}

export interface MatchingRuleView {
  id: number;
  syncRuleId: number;
  order: number;
  connectedSystemAttributeIds: number[];
  connectedSystemAttributes: Array<{ id: number; name: string }>;
  metaverseAttributeId: number;
  metaverseAttributeName: string;
  caseSensitive: boolean;
  created: string;
}

/** A sync rule as lists show it. */
export interface SyncRuleView {
  id: number;
  name: string;
  description: string | null;
  direction: SyncRuleDirection;
  enabled: boolean;
  connectedSystemId: number;
  connectedSystemName: string;
  connectedSystemObjectTypeId: number;
  connectedSystemObjectTypeName: string;
  metaverseObjectTypeId: number;
  metaverseObjectTypeName: string;
  projectToMetaverse: boolean;
  provisionToConnectedSystem: boolean;
  inboundOutOfScopeAction: string | null;
  outboundDeprovisionAction: string | null;
  hasScopingCriteria: boolean;
  mappingCount: number;
  matchingRuleCount: number;
  created: string;
  lastUpdated: string | null;
}

/** A sync rule with its scoping criteria, mappings and matching rules. */
export interface SyncRuleDetailView extends SyncRuleView {
  scopingCriteria: ScopingGroup[];
  mappings: MappingView[];
  matchingRules: MatchingRuleView[];
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

export interface SyncRuleRow {
  id: number;
  name: string;
  description: string | null;
  direction: string;
  enabled: boolean;
  connectedSystemId: number;
  connectedSystemName: string;
  connectedSystemObjectTypeId: number;
  connectedSystemObjectTypeName: string;
  metaverseObjectTypeId: number;
  metaverseObjectTypeName: string;
  projectToMetaverse: boolean;
  provisionToConnectedSystem: boolean;
  inboundOutOfScopeAction: string;
  outboundDeprovisionAction: string;
  scopingCriteria: ScopingGroup[];
  mappingCount: number;
  matchingRuleCount: number;
  created: Date;
  lastUpdated: Date | null;
}

/** The SELECT list and joins of SyncRuleRow; filter with a WHERE on `r`. */
export const SYNC_RULE_SELECT = `
  SELECT r.id, r.name, r.description, r.direction, r.enabled,
         r.connected_system_id AS "connectedSystemId", cs.name AS "connectedSystemName",
         r.connected_system_object_type_id AS "connectedSystemObjectTypeId", t.name AS "connectedSystemObjectTypeName",
         r.metaverse_object_type_id AS "metaverseObjectTypeId", mt.name AS "metaverseObjectTypeName",
         r.project_to_metaverse AS "projectToMetaverse", r.provision_to_connected_system AS "provisionToConnectedSystem",
         r.inbound_out_of_scope_action AS "inboundOutOfScopeAction", r.outbound_deprovision_action AS "outboundDeprovisionAction",
         r.scoping_criteria AS "scopingCriteria",
         (SELECT count(*) FROM sync_rule_mapping m WHERE m.sync_rule_id = r.id)::int AS "mappingCount",
         (SELECT count(*) FROM sync_rule_matching_rule x WHERE x.sync_rule_id = r.id)::int AS "matchingRuleCount",
         r.created, r.last_updated AS "lastUpdated"
    FROM sync_rule r
    JOIN connected_system cs ON cs.id = r.connected_system_id
    JOIN connected_system_object_type t ON t.id = r.connected_system_object_type_id
    JOIN metaverse_object_type mt ON mt.id = r.metaverse_object_type_id`;

/** Fields that do not apply to a rule's direction are shown as false / null. */
export function syncRuleView(row: SyncRuleRow): SyncRuleView {
  const imports = row.direction === SyncRuleDirection.Import;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    direction: row.direction as SyncRuleDirection,
    enabled: row.enabled,
    connectedSystemId: row.connectedSystemId,
    connectedSystemName: row.connectedSystemName,
    connectedSystemObjectTypeId: row.connectedSystemObjectTypeId,
    connectedSystemObjectTypeName: row.connectedSystemObjectTypeName,
    metaverseObjectTypeId: row.metaverseObjectTypeId,
    metaverseObjectTypeName: row.metaverseObjectTypeName,
    projectToMetaverse: imports && row.projectToMetaverse,
    provisionToConnectedSystem: !imports && row.provisionToConnectedSystem,
    inboundOutOfScopeAction: imports ? row.inboundOutOfScopeAction : null,
    outboundDeprovisionAction: imports ? null : row.outboundDeprovisionAction,
    hasScopingCriteria: Array.isArray(row.scopingCriteria) && row.scopingCriteria.length > 0,
    mappingCount: row.mappingCount,
    matchingRuleCount: row.matchingRuleCount,
    created: iso(row.created)!,
    lastUpdated: iso(row.lastUpdated),
  };
}

/** The mappings of a rule (or the given ones) with attribute names, each with its ordered sources. */
export async function loadMappingViews(m: EntityManager, syncRuleId: number, mappingIds?: readonly number[]): Promise<MappingView[]> {
  const rows: Array<Omit<MappingView, 'sources' | 'sourceType' | 'created'> & { created: Date }> = await m.query(
    `SELECT m.id, m.sync_rule_id AS "syncRuleId", m.created,
            m.target_metaverse_attribute_id AS "targetMetaverseAttributeId", ma.name AS "targetMetaverseAttributeName",
            m.target_connected_system_attribute_id AS "targetConnectedSystemAttributeId", ca.name AS "targetConnectedSystemAttributeName",
            m.priority, m.null_is_value AS "nullIsValue", m.initial_export_only AS "initialExportOnly", m.enabled
       FROM sync_rule_mapping m
       LEFT JOIN metaverse_attribute ma ON ma.id = m.target_metaverse_attribute_id
       LEFT JOIN connected_system_attribute ca ON ca.id = m.target_connected_system_attribute_id
      WHERE m.sync_rule_id = $1 AND ($2::int[] IS NULL OR m.id = ANY($2::int[]))
      ORDER BY m.id`,
    [syncRuleId, mappingIds ? [...mappingIds] : null],
  );
  if (!rows.length) return [];
  const sources: Array<MappingSourceView & { mappingId: number }> = await m.query(
    `SELECT s.id, s.mapping_id AS "mappingId", s."order",
            s.connected_system_attribute_id AS "connectedSystemAttributeId", ca.name AS "connectedSystemAttributeName",
            s.metaverse_attribute_id AS "metaverseAttributeId", ma.name AS "metaverseAttributeName", s.expression
       FROM sync_rule_mapping_source s
       LEFT JOIN connected_system_attribute ca ON ca.id = s.connected_system_attribute_id
       LEFT JOIN metaverse_attribute ma ON ma.id = s.metaverse_attribute_id
      WHERE s.mapping_id = ANY($1::int[])
      ORDER BY s.mapping_id, s."order", s.id`,
    [rows.map((r) => r.id)],
  );
  const byMapping = new Map<number, MappingSourceView[]>();
  for (const { mappingId, ...source } of sources) {
    const list = byMapping.get(mappingId) ?? [];
    list.push(source);
    byMapping.set(mappingId, list);
  }
  return rows.map((row) => {
    const list = byMapping.get(row.id) ?? [];
    return { ...row, created: iso(row.created)!, sourceType: deriveMappingSourceType(list), sources: list };
  });
}

/** The matching rules of a rule in evaluation order, with attribute names. */
export async function loadMatchingRuleViews(m: EntityManager, syncRuleId: number, ids?: readonly number[]): Promise<MatchingRuleView[]> {
  const rows: Array<Omit<MatchingRuleView, 'connectedSystemAttributes' | 'created'> & { created: Date }> = await m.query(
    `SELECT x.id, x.sync_rule_id AS "syncRuleId", x."order", x.connected_system_attribute_ids AS "connectedSystemAttributeIds",
            x.metaverse_attribute_id AS "metaverseAttributeId", ma.name AS "metaverseAttributeName",
            x.case_sensitive AS "caseSensitive", x.created
       FROM sync_rule_matching_rule x
       JOIN metaverse_attribute ma ON ma.id = x.metaverse_attribute_id
      WHERE x.sync_rule_id = $1 AND ($2::int[] IS NULL OR x.id = ANY($2::int[]))
      ORDER BY x."order", x.id`,
    [syncRuleId, ids ? [...ids] : null],
  );
  const attributeIds = [...new Set(rows.flatMap((r) => r.connectedSystemAttributeIds))];
  const names: Array<{ id: number; name: string }> = attributeIds.length
    ? await m.query(`SELECT id, name FROM connected_system_attribute WHERE id = ANY($1::int[])`, [attributeIds])
    : [];
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  return rows.map((row) => ({
    ...row,
    connectedSystemAttributes: row.connectedSystemAttributeIds.map((id) => ({ id, name: nameOf.get(id) ?? `#${id}` })),
    created: iso(row.created)!,
  }));
}
