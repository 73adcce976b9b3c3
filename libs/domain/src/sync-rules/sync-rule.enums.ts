/** Direction of a sync rule (DOMAIN.md §1): Import (connected system → metaverse) or Export. Immutable. */
export enum SyncRuleDirection {
  Import = 'Import',
  Export = 'Export',
}

/** What an import rule does with a joined CSO that left its scope (DOMAIN.md §2.2.2). */
export enum InboundOutOfScopeAction {
  RemainJoined = 'RemainJoined',
  Disconnect = 'Disconnect',
}

/** What an export rule does with a joined object that left its scope (DOMAIN.md §2.2.8). */
export enum OutboundDeprovisionAction {
  Disconnect = 'Disconnect',
  Delete = 'Delete',
}

/** The kind of an attribute mapping (spec 2.12), derived from its sources, never stored. */
export enum MappingSourceType {
  AttributeMapping = 'AttributeMapping',
  ExpressionMapping = 'ExpressionMapping',
  AdvancedMapping = 'AdvancedMapping',
}

/**
 * Derives a mapping's sourceType (spec 2.12): one source without expression → AttributeMapping, one
 * source with an expression → ExpressionMapping, several sources → AdvancedMapping.
 */
export function deriveMappingSourceType(sources: ReadonlyArray<{ readonly expression?: string | null }>): MappingSourceType {
  if (sources.length > 1) return MappingSourceType.AdvancedMapping;
  const expression = sources[0]?.expression;
  return typeof expression === 'string' && expression.trim() !== ''
    ? MappingSourceType.ExpressionMapping
    : MappingSourceType.AttributeMapping;
}
