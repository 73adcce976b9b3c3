import type { BoundedCount, PageWindow } from '../sql/bounded-count';
import { boundedCount, firstMatches, LIST_COUNT_CAP } from '../sql/bounded-count';
import type { SqlRunner } from '../sql/sql-runner';

/** A connector space object as the list shows it. */
export interface ConnectorSpaceItemRow {
  id: string;
  externalId: string | null;
  secondaryExternalId: string | null;
  displayName: string | null;
  objectTypeId: number;
  objectTypeName: string;
  status: string;
  metaverseObjectId: string | null;
  joinType: string | null;
  created: Date;
  lastUpdated: Date | null;
  pendingExportCount: number;
}

/** One object with its values, resolved references and the metaverse object it is joined to. */
export interface ConnectorSpaceDetailRow extends ConnectorSpaceItemRow {
  syncPending: boolean;
  attributes: Record<string, unknown> | null;
  resolvedReferences: Record<string, unknown> | null;
  mvId: string | null;
  mvDisplayName: string | null;
  mvTypeName: string | null;
}

/** Filters of the connector space list (validated by the caller); `searchPattern` is a LIKE prefix pattern. */
export interface ConnectorSpaceFilters {
  status: string | null;
  objectTypeId: number | null;
  joined: boolean | null;
  searchPattern: string | null;
}

const ITEM_COLUMNS = `c.id, c.external_id AS "externalId", c.secondary_external_id AS "secondaryExternalId", c.display_name AS "displayName",
  c.object_type_id AS "objectTypeId", t.name AS "objectTypeName", c.status, c.metaverse_object_id AS "metaverseObjectId", c.join_type AS "joinType",
  c.created, c.last_updated AS "lastUpdated",
  (SELECT count(*)::int FROM pending_export pe WHERE pe.connected_system_object_id = c.id) AS "pendingExportCount"`;
const ITEM_FROM = 'connected_system_object c JOIN connected_system_object_type t ON t.id = c.object_type_id';

/** Reads a connected system's connector space for the API (spec 4.3, connector space). */
export class ConnectorSpaceReadStore {
  constructor(private readonly db: SqlRunner) {}

  /**
   * One page in id order. Without filters the page is a walk of (connected_system_id, id); with filters
   * (none of which has an index in id order) the matches are first collected in any order, stopping
   * after offset + LIST_COUNT_CAP + 1, so the work is bounded by the system's object count, never a sort of it.
   */
  async page(
    systemId: number,
    filters: ConnectorSpaceFilters,
    paging: PageWindow,
  ): Promise<{ rows: ConnectorSpaceItemRow[] } & BoundedCount> {
    const params: unknown[] = [systemId];
    const p = (v: unknown) => `$${params.push(v)}`;
    const where = ['c.connected_system_id = $1'];
    if (filters.status) where.push(`c.status = ${p(filters.status)}`);
    if (filters.objectTypeId !== null) where.push(`c.object_type_id = ${p(filters.objectTypeId)}`);
    if (filters.joined !== null) where.push(`c.metaverse_object_id IS ${filters.joined ? 'NOT ' : ''}NULL`);
    if (filters.searchPattern) {
      // lower() on both sides in SQL, so the comparison uses one case mapping; the expressions are the ones an
      // index on (connected_system_id, lower(<column>) text_pattern_ops) would serve.
      const pattern = `lower(${p(filters.searchPattern)}::text)`;
      where.push(
        `(lower(c.external_id) LIKE ${pattern} OR lower(c.secondary_external_id) LIKE ${pattern} OR lower(c.display_name) LIKE ${pattern})`,
      );
    }
    const whereSql = where.join(' AND ');
    const walk = async () =>
      (
        await this.db.query<Array<{ id: string }>>(
          `SELECT c.id FROM connected_system_object c WHERE ${whereSql} ORDER BY c.id LIMIT ${paging.pageSize} OFFSET ${paging.offset}`,
          params,
        )
      ).map((r) => r.id);

    let ids: string[];
    let counted: BoundedCount;
    if (where.length === 1) {
      ids = await walk();
      counted = await boundedCount(this.db, `connected_system_object c WHERE ${whereSql}`, params, paging, ids.length);
    } else {
      const first = await firstMatches(this.db, `SELECT c.id FROM connected_system_object c WHERE ${whereSql}`, params, paging);
      if (first) {
        ids = first.pageIds;
        counted = { totalCount: first.totalCount, totalCountIsExact: true };
      } else {
        ids = await walk();
        counted = { totalCount: paging.offset + LIST_COUNT_CAP, totalCountIsExact: false };
      }
    }
    const rows = ids.length
      ? await this.db.query<ConnectorSpaceItemRow[]>(
          `SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE c.id = ANY($1::uuid[]) ORDER BY c.id`,
          [ids],
        )
      : [];
    return { rows, ...counted };
  }

  /** One object of the system, or null. */
  async detail(systemId: number, objectId: string): Promise<ConnectorSpaceDetailRow | null> {
    const [row] = await this.db.query<ConnectorSpaceDetailRow[]>(
      `SELECT ${ITEM_COLUMNS}, c.sync_pending AS "syncPending", c.attributes, c.resolved_references AS "resolvedReferences",
              mo.id AS "mvId", mo.display_name AS "mvDisplayName", mt.name AS "mvTypeName"
         FROM ${ITEM_FROM}
         LEFT JOIN metaverse_object mo ON mo.id = c.metaverse_object_id
         LEFT JOIN metaverse_object_type mt ON mt.id = mo.type_id
        WHERE c.id = $1 AND c.connected_system_id = $2`,
      [objectId, systemId],
    );
    return row ?? null;
  }
}
