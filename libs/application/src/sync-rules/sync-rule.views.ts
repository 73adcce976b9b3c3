import {
  deriveMappingSourceType,
  InboundOutOfScopeAction,
  MappingSourceType,
  OutboundDeprovisionAction,
  ScopingGroup,
  SyncRuleDirection,
} from '@meridian/domain';
import {
  MatchingRuleRow,
  MatchingRuleStore,
  SyncRuleMappingRow,
  SyncRuleMappingSourceRow,
  SyncRuleMappingStore,
  SyncRuleRow,
  SyncRuleSchemaStore,
} from '@meridian/persistence';
import { EntityManager } from 'typeorm';

/** A source of a mapping with the names of the attributes it reads. */
export type MappingSourceView = Omit<SyncRuleMappingSourceRow, 'mappingId'>;

/** An attribute mapping (spec 2.12) with Meridian's extensions (priority, nullIsValue, initialExportOnly, enabled). */
export interface MappingView extends Omit<SyncRuleMappingRow, 'created'> {
  created: string;
  sourceType: MappingSourceType;
  sources: MappingSourceView[];
}

export interface MatchingRuleView extends Omit<MatchingRuleRow, 'created'> {
  connectedSystemAttributes: Array<{ id: number; name: string }>;
  created: string;
}

/** A sync rule as lists show it: the fields of the other direction are null, the criteria only flagged. */
export interface SyncRuleView extends Omit<
  SyncRuleRow,
  'inboundOutOfScopeAction' | 'outboundDeprovisionAction' | 'scopingCriteria' | 'created' | 'lastUpdated'
> {
  inboundOutOfScopeAction: InboundOutOfScopeAction | null;
  outboundDeprovisionAction: OutboundDeprovisionAction | null;
  hasScopingCriteria: boolean;
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
