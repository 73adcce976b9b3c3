import { SyncRuleDirection } from '@meridian/domain';
import { EntityManager } from 'typeorm';

/** The import mappings that contribute one metaverse attribute of one metaverse object type (DOMAIN.md §2.2.6). */
export interface PriorityGroup {
  metaverseObjectTypeId: number;
  metaverseAttributeId: number;
}

const groupKey = (g: PriorityGroup) => `${g.metaverseObjectTypeId}:${g.metaverseAttributeId}`;

/**
 * Serialises changes to the priority order of the given groups for the rest of the transaction
 * (advisory locks taken in a stable order, so two transactions cannot deadlock on them).
 */
export async function lockPriorityGroups(m: EntityManager, groups: readonly PriorityGroup[]): Promise<void> {
  const keys = [...new Set(groups.map(groupKey))].sort();
  for (const key of keys) await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`meridian:attribute-priority:${key}`]);
}

/** The contributing import mappings of a group in priority order (1 = highest); unnumbered ones last. */
export async function priorityGroupMappingIds(m: EntityManager, group: PriorityGroup, excludeMappingId?: number): Promise<number[]> {
  const rows: Array<{ id: number }> = await m.query(
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
export async function writePriorityOrder(m: EntityManager, orderedMappingIds: readonly number[]): Promise<number[]> {
  if (!orderedMappingIds.length) return [];
  const rows: Array<{ id: number }> = await m.query(
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
export async function compactPriorityGroup(m: EntityManager, group: PriorityGroup): Promise<void> {
  await writePriorityOrder(m, await priorityGroupMappingIds(m, group));
}

/** The priority groups an import rule's mappings belong to. */
export async function priorityGroupsOfRule(m: EntityManager, syncRuleId: number): Promise<PriorityGroup[]> {
  return m.query(
    `SELECT DISTINCT r.metaverse_object_type_id AS "metaverseObjectTypeId", m.target_metaverse_attribute_id AS "metaverseAttributeId"
       FROM sync_rule_mapping m JOIN sync_rule r ON r.id = m.sync_rule_id
      WHERE r.id = $1 AND r.direction = $2 AND m.target_metaverse_attribute_id IS NOT NULL`,
    [syncRuleId, SyncRuleDirection.Import],
  );
}
