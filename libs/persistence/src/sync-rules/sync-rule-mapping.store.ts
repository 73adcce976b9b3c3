import { SyncRuleDirection } from '@meridian/domain';
import type { SqlRunner } from '../sql/sql-runner';

/** An attribute mapping with the names of its target attributes. */
export interface SyncRuleMappingRow {
  id: number;
  syncRuleId: number;
  created: Date;
  targetMetaverseAttributeId: number | null;
  targetMetaverseAttributeName: string | null;
  targetConnectedSystemAttributeId: number | null;
  targetConnectedSystemAttributeName: string | null;
  priority: number | null;
  nullIsValue: boolean;
  initialExportOnly: boolean;
  enabled: boolean;
}

/** A source of a mapping with the names of the attributes it reads. */
export interface SyncRuleMappingSourceRow {
  id: number;
  mappingId: number;
  order: number;
  connectedSystemAttributeId: number | null;
  connectedSystemAttributeName: string | null;
  metaverseAttributeId: number | null;
  metaverseAttributeName: string | null;
  expression: string | null;
}

/** The attribute mappings of sync rules and their sources, as the mapping views and checks read them. */
export class SyncRuleMappingStore {
  constructor(private readonly db: SqlRunner) {}

  /** The mappings of a rule (or only the given ones) in id order. */
  async mappings(syncRuleId: number, mappingIds?: readonly number[]): Promise<SyncRuleMappingRow[]> {
    return this.db.query<SyncRuleMappingRow[]>(
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
  }

  /** The sources of the mappings, by mapping, then evaluation order. */
  async sources(mappingIds: readonly number[]): Promise<SyncRuleMappingSourceRow[]> {
    if (!mappingIds.length) return [];
    return this.db.query<SyncRuleMappingSourceRow[]>(
      `SELECT s.id, s.mapping_id AS "mappingId", s."order",
              s.connected_system_attribute_id AS "connectedSystemAttributeId", ca.name AS "connectedSystemAttributeName",
              s.metaverse_attribute_id AS "metaverseAttributeId", ma.name AS "metaverseAttributeName", s.expression
         FROM sync_rule_mapping_source s
         LEFT JOIN connected_system_attribute ca ON ca.id = s.connected_system_attribute_id
         LEFT JOIN metaverse_attribute ma ON ma.id = s.metaverse_attribute_id
        WHERE s.mapping_id = ANY($1::int[])
        ORDER BY s.mapping_id, s."order", s.id`,
      [[...mappingIds]],
    );
  }

  /** Another mapping of the rule to the same target attribute (of the side the rule's direction writes), if any. */
  async mappingToTarget(
    syncRuleId: number,
    direction: SyncRuleDirection,
    attributeId: number,
    exceptId: number | null,
  ): Promise<number | null> {
    const column = direction === SyncRuleDirection.Import ? 'target_metaverse_attribute_id' : 'target_connected_system_attribute_id';
    const [clash] = await this.db.query<Array<{ id: number }>>(
      `SELECT id FROM sync_rule_mapping WHERE sync_rule_id = $1 AND ${column} = $2 AND id <> $3`,
      [syncRuleId, attributeId, exceptId ?? 0],
    );
    return clash?.id ?? null;
  }
}
