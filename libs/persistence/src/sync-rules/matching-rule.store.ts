import { AttributeDataType } from '@meridian/domain';
import { execute, returnedRows, SqlRunner, WriteResult } from '../sql/sql-runner';

/** A matching rule with the name of its metaverse attribute. */
export interface MatchingRuleRow {
  id: number;
  syncRuleId: number;
  order: number;
  connectedSystemAttributeIds: number[];
  metaverseAttributeId: number;
  metaverseAttributeName: string;
  caseSensitive: boolean;
  created: Date;
}

/** The matching rules of import sync rules: their rows, evaluation order, and the index matching needs. */
export class MatchingRuleStore {
  constructor(private readonly db: SqlRunner) {}

  /** The matching rules of a rule (or only the given ones) in evaluation order. */
  async rules(syncRuleId: number, ids?: readonly number[]): Promise<MatchingRuleRow[]> {
    return this.db.query<MatchingRuleRow[]>(
      `SELECT x.id, x.sync_rule_id AS "syncRuleId", x."order", x.connected_system_attribute_ids AS "connectedSystemAttributeIds",
              x.metaverse_attribute_id AS "metaverseAttributeId", ma.name AS "metaverseAttributeName",
              x.case_sensitive AS "caseSensitive", x.created
         FROM sync_rule_matching_rule x
         JOIN metaverse_attribute ma ON ma.id = x.metaverse_attribute_id
        WHERE x.sync_rule_id = $1 AND ($2::int[] IS NULL OR x.id = ANY($2::int[]))
        ORDER BY x."order", x.id`,
      [syncRuleId, ids ? [...ids] : null],
    );
  }

  /** Another matching rule of the rule over the same attributes, if any. */
  async sameAttributes(syncRuleId: number, csIds: readonly number[], mvId: number, exceptId: number | null): Promise<number | null> {
    const [clash] = await this.db.query<Array<{ id: number }>>(
      `SELECT id FROM sync_rule_matching_rule WHERE sync_rule_id = $1 AND connected_system_attribute_ids = $2::int[] AND metaverse_attribute_id = $3 AND id <> $4`,
      [syncRuleId, [...csIds], mvId, exceptId ?? 0],
    );
    return clash?.id ?? null;
  }

  /** The ids of a rule's matching rules in evaluation order, without `excludeId`. */
  async orderedIds(syncRuleId: number, excludeId?: number): Promise<number[]> {
    const rows = await this.db.query<Array<{ id: number }>>(
      `SELECT id FROM sync_rule_matching_rule WHERE sync_rule_id = $1 AND id <> $2 ORDER BY "order", id`,
      [syncRuleId, excludeId ?? 0],
    );
    return rows.map((r) => r.id);
  }

  /** Numbers the matching rules 1..n in the given order; answers how many changed position. */
  async writeOrder(ids: readonly number[]): Promise<number> {
    if (!ids.length) return 0;
    return execute(
      this.db,
      `UPDATE sync_rule_matching_rule x SET "order" = o.ord::int FROM unnest($1::int[]) WITH ORDINALITY AS o(id, ord)
        WHERE x.id = o.id AND x."order" IS DISTINCT FROM o.ord::int`,
      [[...ids]],
    );
  }

  /** Turns on the index of a metaverse attribute of one of the types when it is off; answers its name when it did. */
  async indexAttribute(attributeId: number, types: readonly AttributeDataType[]): Promise<string | null> {
    const [updated] = returnedRows(
      await this.db.query<WriteResult<{ name: string }>>(
        `UPDATE metaverse_attribute SET is_indexed = true, last_updated = now() WHERE id = $1 AND NOT is_indexed AND type = ANY($2::text[]) RETURNING name`,
        [attributeId, [...types]],
      ),
    );
    return updated?.name ?? null;
  }
}
