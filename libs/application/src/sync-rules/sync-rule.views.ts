import {
  deriveMappingSourceType,
  InboundOutOfScopeAction,
  MappingSourceType,
  OutboundDeprovisionAction,
  ScopingGroup,
  SyncRuleDirection,
} from '@meridian/domain';
import { MatchingRuleStore, SyncRuleMappingStore, SyncRuleRow, SyncRuleSchemaStore } from '@meridian/persistence';
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
  inboundOutOfScopeAction: InboundOutOfScopeAction | null;
  outboundDeprovisionAction: OutboundDeprovisionAction | null;
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

/** Fields that do not apply to a rule's direction are shown as false / null. */
export function syncRuleView(row: SyncRuleRow): SyncRuleView {
  const imports = row.direction === SyncRuleDirection.Import;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    direction: row.direction,
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
  const store = new SyncRuleMappingStore(m);
  const rows = await store.mappings(syncRuleId, mappingIds);
  if (!rows.length) return [];
  const byMapping = new Map<number, MappingSourceView[]>();
  for (const { mappingId, ...source } of await store.sources(rows.map((r) => r.id))) {
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
  const rows = await new MatchingRuleStore(m).rules(syncRuleId, ids);
  const nameOf = await new SyncRuleSchemaStore(m).csAttributeNames([...new Set(rows.flatMap((r) => r.connectedSystemAttributeIds))]);
  return rows.map((row) => ({
    ...row,
    connectedSystemAttributes: row.connectedSystemAttributeIds.map((id) => ({ id, name: nameOf.get(id) ?? `#${id}` })),
    created: iso(row.created)!,
  }));
}
