import { SyncRuleDirection } from '@meridian/domain';
import type { SqlRunner } from '../sql/sql-runner';

/** The import mappings that contribute one metaverse attribute of one metaverse object type (DOMAIN.md §2.2.6). */
export interface PriorityGroup {
  metaverseObjectTypeId: number;
  metaverseAttributeId: number;
}

/** One import mapping contributing a metaverse attribute of a metaverse object type, with its priority (1 = highest). */
export interface AttributePriorityRow {
  metaverseObjectTypeId: number;
  metaverseObjectTypeName: string;
  metaverseAttributeId: number;
  metaverseAttributeName: string;
  mappingId: number;
  syncRuleId: number;
  syncRuleName: string;
  syncRuleEnabled: boolean;
  mappingEnabled: boolean;
  connectedSystemId: number;
  connectedSystemName: string;
  priority: number;
  nullIsValue: boolean;
}

const groupKey = (g: PriorityGroup) => `${g.metaverseObjectTypeId}:${g.metaverseAttributeId}`;

/** The priority order of the import mappings contributing each metaverse attribute. */
export class AttributePriorityStore {
  constructor(private readonly db: SqlRunner) {}

  /**
   * Serialises changes to the priority order of the given groups for the rest of the transaction
   * (advisory locks taken in a stable order, so two transactions cannot deadlock on them).
   */
  async lockGroups(groups: readonly PriorityGroup[]): Promise<void> {
    const keys = [...new Set(groups.map(groupKey))].sort();
    for (const key of keys) await this.db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`meridian:attribute-priority:${key}`]);
  }

  /** The contributing import mappings of a group in priority order (1 = highest); unnumbered ones last. */
  async groupMappingIds(group: PriorityGroup, excludeMappingId?: number): Promise<number[]> {
    const rows = await this.db.query<Array<{ id: number }>>(
      `SELECT m.id FROM sync_rule_mapping m JOIN sync_rule r ON r.id = m.sync_rule_id
        WHERE r.direction = $1 AND r.metaverse_object_type_id = $2 AND m.target_metaverse_attribute_id = $3 AND m.id <> $4
        ORDER BY m.priority NULLS LAST, m.id`,
      [SyncRuleDirection.Import, group.metaverseObjectTypeId, group.metaverseAttributeId, excludeMappingId ?? 0],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Numbers the mappings 1..n in the given order in one statement, and flags every connected system
   * whose mapping changed priority for a full synchronisation. Returns the ids whose priority changed.
   */
  async writeOrder(orderedMappingIds: readonly number[]): Promise<number[]> {
    if (!orderedMappingIds.length) return [];
    const rows = await this.db.query<Array<{ id: number }>>(
      `WITH changed AS (
         UPDATE sync_rule_mapping m SET priority = o.ord::int
           FROM unnest($1::int[]) WITH ORDINALITY AS o(id, ord)
          WHERE m.id = o.id AND m.priority IS DISTINCT FROM o.ord::int
         RETURNING m.id, m.sync_rule_id),
       flagged AS (
         UPDATE connected_system cs SET full_sync_required = true
          WHERE cs.id IN (SELECT r.connected_system_id FROM sync_rule r JOIN changed c ON c.sync_rule_id = r.id) AND NOT cs.full_sync_required)
       SELECT id FROM changed`,
      [[...orderedMappingIds]],
    );
    return rows.map((r) => r.id);
  }

  /** Renumbers a group 1..n keeping its current order (after a contributor was removed or moved away). */
  async compactGroup(group: PriorityGroup): Promise<void> {
    await this.writeOrder(await this.groupMappingIds(group));
  }

  /** The priority groups an import rule's mappings belong to. */
  async groupsOfRule(syncRuleId: number): Promise<PriorityGroup[]> {
    return this.db.query<PriorityGroup[]>(
      `SELECT DISTINCT r.metaverse_object_type_id AS "metaverseObjectTypeId", m.target_metaverse_attribute_id AS "metaverseAttributeId"
         FROM sync_rule_mapping m JOIN sync_rule r ON r.id = m.sync_rule_id
        WHERE r.id = $1 AND r.direction = $2 AND m.target_metaverse_attribute_id IS NOT NULL`,
      [syncRuleId, SyncRuleDirection.Import],
    );
  }

  /** The contributors of every group (or of one object type and/or attribute) by type, attribute and priority. */
  async contributors(filter: { metaverseObjectTypeId?: number; metaverseAttributeId?: number }): Promise<AttributePriorityRow[]> {
    const params: unknown[] = [SyncRuleDirection.Import];
    let where = '';
    if (filter.metaverseObjectTypeId !== undefined)
      where += ` AND r.metaverse_object_type_id = $${params.push(filter.metaverseObjectTypeId)}`;
    if (filter.metaverseAttributeId !== undefined)
      where += ` AND m.target_metaverse_attribute_id = $${params.push(filter.metaverseAttributeId)}`;
    return this.db.query<AttributePriorityRow[]>(
      `SELECT r.metaverse_object_type_id AS "metaverseObjectTypeId", mt.name AS "metaverseObjectTypeName",
              m.target_metaverse_attribute_id AS "metaverseAttributeId", ma.name AS "metaverseAttributeName",
              m.id AS "mappingId", r.id AS "syncRuleId", r.name AS "syncRuleName", r.enabled AS "syncRuleEnabled", m.enabled AS "mappingEnabled",
              r.connected_system_id AS "connectedSystemId", cs.name AS "connectedSystemName", m.priority, m.null_is_value AS "nullIsValue"
         FROM sync_rule_mapping m
         JOIN sync_rule r ON r.id = m.sync_rule_id
         JOIN connected_system cs ON cs.id = r.connected_system_id
         JOIN metaverse_object_type mt ON mt.id = r.metaverse_object_type_id
         JOIN metaverse_attribute ma ON ma.id = m.target_metaverse_attribute_id
        WHERE r.direction = $1${where}
        ORDER BY lower(mt.name), mt.id, lower(ma.name), ma.id, m.priority NULLS LAST, m.id`,
      params,
    );
  }
}
