import type { CompiledExpression } from '../expressions';
import type { DeletionRuleSettings } from '../metaverse/deletion-rule';
import type { ScopingGroup } from '../sync-rules/scoping-criteria';

/** An attribute as the engine sees it (connected-system or metaverse): id, name, type and plurality. */
export interface EngineAttribute {
  id: number;
  name: string;
  type: string;
  plurality: 'Single' | 'Multi';
}

/** One source of a mapping: an attribute, an expression, or both (the expression computes the value). */
export interface MappingSource {
  attributeId: number | null;
  expression: CompiledExpression | null;
}

export interface InboundMapping {
  id: number;
  ruleId: number;
  systemId: number;
  targetAttributeId: number;
  /** 1 = highest; null = after every numbered one. */
  priority: number | null;
  nullIsValue: boolean;
  sources: MappingSource[];
}

export interface MatchingRuleDef {
  id: number;
  order: number;
  csAttributeIds: number[];
  mvAttributeId: number;
  caseSensitive: boolean;
}

export interface ImportRuleDef {
  id: number;
  name: string;
  systemId: number;
  csObjectTypeId: number;
  mvObjectTypeId: number;
  project: boolean;
  scoping: ScopingGroup[];
  /** `RemainJoined` or `Disconnect`. */
  outOfScopeAction: string;
  mappings: InboundMapping[];
  matchingRules: MatchingRuleDef[];
}

export interface OutboundMapping {
  id: number;
  targetAttributeId: number;
  initialExportOnly: boolean;
  sources: MappingSource[];
}

export interface ExportRuleDef {
  id: number;
  name: string;
  systemId: number;
  csObjectTypeId: number;
  mvObjectTypeId: number;
  provision: boolean;
  scoping: ScopingGroup[];
  /** `Disconnect` or `Delete`. */
  deprovisionAction: string;
  mappings: OutboundMapping[];
}

export interface MetaverseTypeDef extends DeletionRuleSettings {
  id: number;
  name: string;
}

/** One stored metaverse value with its provenance: `s` the contributing system (null: set through the API), `r` the sync rule. */
export interface StoredMetaverseValue {
  v: unknown;
  s: number | null;
  r?: number | null;
}

/** `metaverse_object.attributes`: metaverse attribute id → values with provenance. */
export type StoredMetaverseAttributes = Record<string, StoredMetaverseValue[]>;

/** `connected_system_object.attributes`: connected-system attribute id → values. */
export type StoredConnectorAttributes = Record<string, unknown[]>;

/** One attribute change of a pending export (stored form). `mv` holds reference values as metaverse object ids. */
export interface AttributeChange {
  a: number;
  op: 'Add' | 'Replace' | 'Remove' | 'RemoveAll';
  v: unknown[];
  mv?: string[];
}
