import { AttributeDataType, MetaverseObjectStatus, searchPatterns } from '@meridian/domain';
import type { EntityManager } from 'typeorm';
import { boundedCount, firstMatches } from '../sql/bounded-count';
import { execute } from '../sql/sql-runner';
import { lookupValueSql, MAX_LOOKUP_VALUE_LENGTH } from './metaverse-lookup.store';

/** The `attributes` document of a metaverse object: attribute id → values, each with the system that contributed it. */
export type StoredAttributeValues = Record<string, Array<{ v: unknown; s?: number | null }>>;

export interface MetaverseObjectListFilter {
  offset: number;
  pageSize: number;
  /** Exact counts go this far past the start of the page (see boundedCount). */
  countCap: number;
  objectTypeId: number | null;
  /** Every object type: a search over all types walks each type's index and merges. */
  allObjectTypeIds: readonly number[];
  search: string | null;
  /** Objects with this value (normalised for the attribute's type) of one attribute. */
  attributeValue: { attributeId: number; isIndexed: boolean; value: string } | null;
  /** Whether the rows carry their attribute documents. */
  withAttributes: boolean;
}

export interface MetaverseObjectListRow {
  id: string;
  created: Date;
  displayName: string | null;
  status: MetaverseObjectStatus;
  typeId: number;
  attributes?: StoredAttributeValues;
}

export interface MetaverseObjectListResult {
  rows: MetaverseObjectListRow[];
  totalCount: number;
  totalCountIsExact: boolean;
}

/** One metaverse object with what its detail view names: attribute definitions, systems, referenced objects and joined CSOs. */
export interface MetaverseObjectDetailRow {
  id: string;
  created: Date;
  lastUpdated: Date | null;
  displayName: string | null;
  status: MetaverseObjectStatus;
  origin: string;
  lastConnectorDisconnectedDate: Date | null;
  deletionEligibleDate: Date | null;
  typeId: number;
  typeName: string;
  attributes: StoredAttributeValues;
  attributeDefinitions: Array<{ id: number; name: string; type: AttributeDataType; plurality: string }>;
  systems: Array<{ id: number; name: string }>;
  references: Array<{ id: string; displayName: string | null }>;
  connectedSystemObjects: Array<{ id: string; connectedSystemId: number; connectedSystemName: string; displayName: string | null }>;
}

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Metaverse objects: the list, the detail, and the writes of Internal objects. */
export class MetaverseObjectStore {
  constructor(private readonly db: EntityManager) {}

  /**
   * One page of objects in id order. Whatever the filter, that order is an index walk (docs/metaverse.md):
   * the primary key, (type_id, id), or the lookup key (attribute_id, value_normalised, object_id).
   */
  async list(f: MetaverseObjectListFilter): Promise<MetaverseObjectListResult> {
    const params: unknown[] = [];
    const p = (v: unknown) => `$${params.push(v)}`;
    const where: string[] = [];
    let from = 'metaverse_object o';
    let order = 'o.id';
    const filter = f.attributeValue;
    if (filter?.isIndexed) {
      from = 'metaverse_object_lookup l JOIN metaverse_object o ON o.id = l.object_id';
      order = 'l.object_id';
      where.push(`l.attribute_id = ${p(filter.attributeId)}`, `l.value_normalised = ${lookupValueSql(`${p(filter.value)}::text`)}`);
    }
    if (f.objectTypeId !== null) where.push(`o.type_id = ${p(f.objectTypeId)}`);
    // lower() on both sides in SQL, so the comparison uses one case mapping; served by the trigram index.
    if (f.search)
      where.push(
        `(${searchPatterns(f.search)
          .map((pattern) => `lower(o.display_name) LIKE lower(${p(pattern)})`)
          .join(' OR ')})`,
      );
    // Lookup rows keep the first 512 characters, so a longer value is confirmed against the stored one;
    // an attribute without an index is read from every object in scope (documented as slow at scale).
    if (filter && (!filter.isIndexed || filter.value.length > MAX_LOOKUP_VALUE_LENGTH)) {
      const key = `${p(String(filter.attributeId))}::text`;
      where.push(
        `o.attributes ? ${key}`,
        `EXISTS (SELECT 1 FROM jsonb_array_elements(o.attributes -> ${key}) e WHERE lower(e ->> 'v') = lower(${p(filter.value)}::text))`,
      );
    }
    const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const columns = `o.id, o.created, o.display_name AS "displayName", o.status, o.type_id AS "typeId"${f.withAttributes ? ', o.attributes' : ''}`;
    const paging = { offset: f.offset, pageSize: f.pageSize };
    const limit = f.offset + f.countCap;
    // The page: ids from the index walk in id order (index-only where it can be), then the rows of those ids alone.
    const pageSql = `SELECT ${columns} FROM metaverse_object o
       JOIN (SELECT o.id FROM ${from} ${whereSql} ORDER BY ${order} LIMIT ${f.pageSize} OFFSET ${f.offset}) p ON p.id = o.id ORDER BY o.id`;
    if (!f.search && !(filter && !filter.isIndexed)) {
      // Type and indexed-attribute filters: the id order is an index, so the walk is cheap whatever matches;
      // a short page ends the list, otherwise the count is an index-only walk up to the bound.
      const rows = await this.db.query<MetaverseObjectListRow[]>(pageSql, params);
      return { rows, ...(await boundedCount(this.db, `${from} ${whereSql}`, params, paging, rows.length, f.countCap)) };
    }
    // A search (or an unindexed filter): where the matches lie in id order is unknown, and the planner
    // estimates trigram matches badly either way. So the plan is chosen from what is learnt, not guessed:
    return this.db.transaction(async (m) => {
      // 1. At most limit + 1 matches in any order, through the trigram index (bitmap scans only: the cost
      //    is the index's candidates plus at most limit + 1 rows), with the page cut from them.
      if (f.search) await m.query(`SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off`);
      const first = await firstMatches(m, `SELECT o.id FROM ${from} ${whereSql}`, params, paging, f.countCap);
      if (first) {
        const rows = first.pageIds.length
          ? await m.query<MetaverseObjectListRow[]>(
              `SELECT ${columns} FROM metaverse_object o WHERE o.id = ANY($1::uuid[]) ORDER BY o.id`,
              [first.pageIds],
            )
          : [];
        return { rows, totalCount: first.totalCount, totalCountIsExact: true };
      }
      // 2. More than that: at least (offset + cap) / N of the objects match, so a walk in id order reaches
      //    the page within a bounded number of entries — index-only over (type_id, id) INCLUDE
      //    (display_name), one walk per type when no type is given, merged.
      if (!f.search) return { rows: await m.query<MetaverseObjectListRow[]>(pageSql, params), totalCount: limit, totalCountIsExact: false };
      await m.query(`SET LOCAL enable_indexscan = on; SET LOCAL enable_indexonlyscan = on; SET LOCAL enable_bitmapscan = off`);
      const walk =
        f.objectTypeId !== null
          ? pageSql
          : `SELECT ${columns} FROM metaverse_object o JOIN (SELECT id FROM (${f.allObjectTypeIds
              .map(
                (t) =>
                  `(SELECT o.id FROM ${from} ${whereSql} AND o.type_id = ${Number(t)} ORDER BY ${order} LIMIT ${f.offset + f.pageSize})`,
              )
              .join(' UNION ALL ')}) u
          ORDER BY id LIMIT ${f.pageSize} OFFSET ${f.offset}) p ON p.id = o.id ORDER BY o.id`;
      return { rows: await m.query<MetaverseObjectListRow[]>(walk, params), totalCount: limit, totalCountIsExact: false };
    });
  }

  /** One object with everything its detail view names, or null. */
  async detail(id: string): Promise<MetaverseObjectDetailRow | null> {
    const [row] = await this.db.query<MetaverseObjectDetailRow[]>(
      `SELECT o.id, o.created, o.last_updated AS "lastUpdated", o.display_name AS "displayName", o.status, o.origin,
              o.last_connector_disconnected_date AS "lastConnectorDisconnectedDate", o.deletion_eligible_date AS "deletionEligibleDate",
              o.type_id AS "typeId", t.name AS "typeName", o.attributes,
              (SELECT COALESCE(json_agg(json_build_object('id', a.id, 'name', a.name, 'type', a.type, 'plurality', a.plurality)), '[]')
                 FROM metaverse_attribute a WHERE o.attributes ? a.id::text) AS "attributeDefinitions",
              (SELECT COALESCE(json_agg(json_build_object('id', cs.id, 'name', cs.name)), '[]') FROM connected_system cs
                WHERE cs.id IN (SELECT (e ->> 's')::int FROM jsonb_each(o.attributes) kv, jsonb_array_elements(kv.value) e
                                 WHERE jsonb_typeof(e -> 's') = 'number')) AS systems,
              (SELECT COALESCE(json_agg(json_build_object('id', r.id, 'displayName', r.display_name)), '[]') FROM metaverse_object r
                WHERE r.id IN (SELECT (e ->> 'v')::uuid FROM metaverse_attribute a, jsonb_array_elements(o.attributes -> a.id::text) e
                                WHERE a.type = '${AttributeDataType.Reference}' AND o.attributes ? a.id::text
                                  AND e ->> 'v' ~ '${UUID_PATTERN}')) AS "references",
              (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'connectedSystemId', c.connected_system_id, 'connectedSystemName', cs.name,
                                                          'displayName', COALESCE(c.display_name, c.external_id)) ORDER BY cs.name, c.id), '[]')
                 FROM connected_system_object c JOIN connected_system cs ON cs.id = c.connected_system_id WHERE c.metaverse_object_id = o.id) AS "connectedSystemObjects"
         FROM metaverse_object o JOIN metaverse_object_type t ON t.id = o.type_id
        WHERE o.id = $1`,
      [id],
    );
    return row ?? null;
  }

  /** Replaces an object's attribute document and display name. */
  async updateValues(id: string, attributes: StoredAttributeValues, displayName: string | null): Promise<void> {
    await this.db.query(`UPDATE metaverse_object SET attributes = $2, display_name = $3, last_updated = now() WHERE id = $1`, [
      id,
      attributes,
      displayName,
    ]);
  }

  /** Removes `id` from the Reference attributes of every other object (one statement); returns how many objects changed. */
  async removeReferencesTo(id: string): Promise<number> {
    return execute(
      this.db,
      `WITH refs AS (SELECT id::text AS k FROM metaverse_attribute WHERE type = '${AttributeDataType.Reference}')
       UPDATE metaverse_object o
          SET last_updated = now(),
              attributes = (SELECT COALESCE(jsonb_object_agg(kv.key, kv.value), '{}') FROM (
                              SELECT e.key, CASE WHEN e.key IN (SELECT k FROM refs)
                                                 THEN (SELECT COALESCE(jsonb_agg(x), '[]') FROM jsonb_array_elements(e.value) x WHERE x ->> 'v' IS DISTINCT FROM $1::text)
                                                 ELSE e.value END AS value
                                FROM jsonb_each(o.attributes) e) kv
                             WHERE kv.value <> '[]'::jsonb)
        WHERE o.id <> $1::text::uuid
          AND EXISTS (SELECT 1 FROM refs, jsonb_array_elements(o.attributes -> refs.k) x WHERE o.attributes ? refs.k AND x ->> 'v' = $1::text)`,
      [id],
    );
  }

  /** Disconnects the connector space objects joined to an object; returns how many. */
  async disconnectConnectorSpaceObjects(id: string): Promise<number> {
    return execute(
      this.db,
      `UPDATE connected_system_object SET metaverse_object_id = NULL, join_type = NULL, last_updated = now() WHERE metaverse_object_id = $1`,
      [id],
    );
  }

  async delete(id: string): Promise<void> {
    await this.db.query(`DELETE FROM metaverse_object WHERE id = $1`, [id]);
  }

  /**
   * Normal objects of type `objectTypeName` holding `value` exactly in the attribute named
   * `attributeName` (ignoring case), found through its lookup rows; at most `limit`.
   */
  async withValue(
    objectTypeName: string,
    attributeName: string,
    value: string,
    limit: number,
  ): Promise<Array<{ id: string; displayName: string | null }>> {
    return this.db.query<Array<{ id: string; displayName: string | null }>>(
      `SELECT o.id, o.display_name AS "displayName"
         FROM metaverse_attribute a
         JOIN metaverse_object_lookup l ON l.attribute_id = a.id AND l.value_normalised = ${lookupValueSql('$2')}
         JOIN metaverse_object o ON o.id = l.object_id
         JOIN metaverse_object_type t ON t.id = o.type_id AND t.name = $3
        WHERE lower(a.name) = lower($1) AND o.status = '${MetaverseObjectStatus.Normal}'
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(o.attributes -> a.id::text) e WHERE e ->> 'v' = $2)
        LIMIT ${Number(limit)}`,
      [attributeName, value, objectTypeName],
    );
  }
}
