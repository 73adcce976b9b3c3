import { InboundOutOfScopeAction, OutboundDeprovisionAction, ScopingGroup, SyncRuleDirection } from '@meridian/domain';
import type { PageWindow } from '../sql/bounded-count';
import type { SqlRunner } from '../sql/sql-runner';

/** A sync rule with the names of its system and object types and the counts of its mappings and matching rules. */
export interface SyncRuleRow {
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
  inboundOutOfScopeAction: InboundOutOfScopeAction;
  outboundDeprovisionAction: OutboundDeprovisionAction;
  scopingCriteria: ScopingGroup[];
  mappingCount: number;
  matchingRuleCount: number;
  created: Date;
  lastUpdated: Date | null;
}

/** The filters of the sync-rule list; absent ones do not filter. */
export interface SyncRuleFilter {
  connectedSystemId?: number;
  metaverseObjectTypeId?: number;
  direction?: SyncRuleDirection;
}

/** The names a rule's activities and errors show. */
export interface SyncRuleNames {
  connectedSystemName: string;
  csTypeName: string;
  mvTypeName: string;
}

const SYNC_RULE_SELECT = `
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

function whereOf(filter: SyncRuleFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const filters: string[] = [];
  if (filter.connectedSystemId !== undefined) filters.push(`r.connected_system_id = $${params.push(filter.connectedSystemId)}`);
  if (filter.metaverseObjectTypeId !== undefined)
    filters.push(`r.metaverse_object_type_id = $${params.push(filter.metaverseObjectTypeId)}`);
  if (filter.direction !== undefined) filters.push(`r.direction = $${params.push(filter.direction)}`);
  return { where: filters.length ? `WHERE ${filters.join(' AND ')}` : '', params };
}

/** Sync rules as lists and details read them, their names and counts, and the full-sync flag a change raises. */
export class SyncRuleStore {
  constructor(private readonly db: SqlRunner) {}

  async count(filter: SyncRuleFilter): Promise<number> {
    const { where, params } = whereOf(filter);
    const [{ count }] = await this.db.query<Array<{ count: number }>>(`SELECT count(*)::int AS count FROM sync_rule r ${where}`, params);
    return count;
  }

  /** One page of rules ordered by name (ignoring case), then id. */
  async page(filter: SyncRuleFilter, paging: PageWindow): Promise<SyncRuleRow[]> {
    const { where, params } = whereOf(filter);
    return this.db.query<SyncRuleRow[]>(
      `${SYNC_RULE_SELECT} ${where} ORDER BY lower(r.name), r.id LIMIT ${paging.pageSize} OFFSET ${paging.offset}`,
      params,
    );
  }

  async row(id: number): Promise<SyncRuleRow | null> {
    const [row] = await this.db.query<SyncRuleRow[]>(`${SYNC_RULE_SELECT} WHERE r.id = $1`, [id]);
    return row ?? null;
  }

  /** The names of a rule's connected system and object types (empty when one is missing). */
  async names(connectedSystemId: number, csTypeId: number, mvTypeId: number): Promise<SyncRuleNames> {
    const [names] = await this.db.query<SyncRuleNames[]>(
      `SELECT cs.name AS "connectedSystemName", t.name AS "csTypeName", mt.name AS "mvTypeName"
         FROM connected_system cs, connected_system_object_type t, metaverse_object_type mt
        WHERE cs.id = $1 AND t.id = $2 AND mt.id = $3`,
      [connectedSystemId, csTypeId, mvTypeId],
    );
    return {
      connectedSystemName: names?.connectedSystemName ?? '',
      csTypeName: names?.csTypeName ?? '',
      mvTypeName: names?.mvTypeName ?? '',
    };
  }

  async connectedSystemName(id: number): Promise<string | null> {
    const [system] = await this.db.query<Array<{ name: string }>>(`SELECT name FROM connected_system WHERE id = $1`, [id]);
    return system?.name ?? null;
  }

  /** How many mappings and matching rules a rule has. */
  async childCounts(id: number): Promise<{ mappings: number; matching: number }> {
    const [counts] = await this.db.query<Array<{ mappings: number; matching: number }>>(
      `SELECT (SELECT count(*) FROM sync_rule_mapping WHERE sync_rule_id = $1)::int AS mappings,
              (SELECT count(*) FROM sync_rule_matching_rule WHERE sync_rule_id = $1)::int AS matching`,
      [id],
    );
    return counts;
  }

  /** Serialises name checks for the rest of the transaction, so two rules cannot take one name together. */
  async lockNames(): Promise<void> {
    await this.db.query(`SELECT pg_advisory_xact_lock(hashtext('meridian:sync-rule-name'))`);
  }

  /** The id of another rule with this name, ignoring case. */
  async ruleNamedLike(name: string, exceptId: number | null): Promise<number | null> {
    const [clash] = await this.db.query<Array<{ id: number }>>(`SELECT id FROM sync_rule WHERE lower(name) = lower($1) AND id <> $2`, [
      name,
      exceptId ?? 0,
    ]);
    return clash?.id ?? null;
  }

  /** Flags the connected systems for a full synchronisation (those not flagged already). */
  async markFullSyncRequired(connectedSystemIds: readonly number[]): Promise<void> {
    if (!connectedSystemIds.length) return;
    await this.db.query(`UPDATE connected_system SET full_sync_required = true WHERE id = ANY($1::int[]) AND NOT full_sync_required`, [
      [...connectedSystemIds],
    ]);
  }
}
