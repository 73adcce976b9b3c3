import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ConnectorSpaceObjectStatus, DomainError, ValidationErrorCollector } from '@meridian/domain';
import { PagedResult, pageOf, parsePaging } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { BoundedCount, boundedCount, firstMatches, LIST_COUNT_CAP } from '../common/bounded-count';
import { booleanParam, enumParam, positiveIntParam, prefixPattern, textParam } from '../common/query-params';
import { findSystem } from './connected-system.store';
import { AttributeMeta, attributeMeta, PendingExportView } from './pending-export.views';
import { PendingExportsQuery } from './pending-exports.query';

export interface ConnectorSpaceListQuery {
  page?: unknown;
  pageSize?: unknown;
  search?: unknown;
  status?: unknown;
  objectTypeId?: unknown;
  joined?: unknown;
}

export interface ConnectorSpaceObjectListItem {
  id: string;
  externalId: string | null;
  secondaryExternalId: string | null;
  displayName: string | null;
  objectTypeId: number;
  objectTypeName: string;
  status: string;
  metaverseObjectId: string | null;
  joinType: string | null;
  created: string;
  lastUpdated: string | null;
  pendingExportCount: number;
}

/** The list envelope (spec 2.1) plus whether totalCount is exact (see LIST_COUNT_CAP). */
export interface ConnectorSpacePage extends PagedResult<ConnectorSpaceObjectListItem> {
  totalCountIsExact: boolean;
}

export interface ConnectorSpaceObjectDetail extends ConnectorSpaceObjectListItem {
  /** Waiting for the next delta synchronisation. */
  syncPending: boolean;
  attributeValues: Array<{ attributeId: number; attributeName: string | null; attributeType: string | null; values: unknown[] }>;
  /** References resolved to connector space objects after the last import (null: not resolved yet). */
  resolvedReferences: Array<{ attributeId: number; attributeName: string | null; connectedSystemObjectIds: Array<string | null> }> | null;
  metaverseObject: { id: string; displayName: string | null; typeName: string } | null;
  pendingExports: PendingExportView[];
}

/** Longest search text accepted. */
const MAX_SEARCH_LENGTH = 200;

const ITEM_COLUMNS = `c.id, c.external_id, c.secondary_external_id, c.display_name, c.object_type_id, t.name AS object_type_name, c.status,
  c.metaverse_object_id, c.join_type, c.created, c.last_updated,
  (SELECT count(*)::int FROM pending_export pe WHERE pe.connected_system_object_id = c.id) AS pending_export_count`;
const ITEM_FROM = 'connected_system_object c JOIN connected_system_object_type t ON t.id = c.object_type_id';

interface ItemRow {
  id: string;
  external_id: string | null;
  secondary_external_id: string | null;
  display_name: string | null;
  object_type_id: number;
  object_type_name: string;
  status: string;
  metaverse_object_id: string | null;
  join_type: string | null;
  created: Date;
  last_updated: Date | null;
  pending_export_count: number;
}

interface DetailRow extends ItemRow {
  sync_pending: boolean;
  attributes: Record<string, unknown> | null;
  resolved_references: Record<string, unknown> | null;
  mv_id: string | null;
  mv_display_name: string | null;
  mv_type_name: string | null;
}

function itemView(r: ItemRow): ConnectorSpaceObjectListItem {
  return {
    id: r.id,
    externalId: r.external_id,
    secondaryExternalId: r.secondary_external_id,
    displayName: r.display_name,
    objectTypeId: r.object_type_id,
    objectTypeName: r.object_type_name,
    status: r.status,
    metaverseObjectId: r.metaverse_object_id,
    joinType: r.join_type,
    created: r.created.toISOString(),
    lastUpdated: r.last_updated?.toISOString() ?? null,
    pendingExportCount: r.pending_export_count,
  };
}

/** By attribute name (attributes gone from the schema last), then id. */
function byAttribute(attributes: Map<number, AttributeMeta>) {
  return (x: { attributeId: number }, y: { attributeId: number }) => {
    const a = attributes.get(x.attributeId)?.name;
    const b = attributes.get(y.attributeId)?.name;
    if (a !== undefined && b !== undefined) return a.localeCompare(b, 'en', { sensitivity: 'base' }) || x.attributeId - y.attributeId;
    return a !== undefined ? -1 : b !== undefined ? 1 : x.attributeId - y.attributeId;
  };
}

/** Reads the connector space of a connected system: what the last import saw, joins and staged exports. */
@Injectable()
export class ConnectorSpaceQuery {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly pendingExports: PendingExportsQuery,
  ) {}

  /**
   * Ordered by id. Without filters the page is a walk of (connected_system_id, id); with filters (none
   * of which has an index in id order) the matches are first collected in any order, stopping after
   * offset + LIST_COUNT_CAP + 1, so the work is bounded by the system's object count, never a sort of it.
   */
  async list(systemId: number, query: ConnectorSpaceListQuery): Promise<ConnectorSpacePage> {
    const paging = parsePaging(query, { pageSize: 25, maxPageSize: 100 });
    const errors = new ValidationErrorCollector();
    const status = enumParam(query.status, ConnectorSpaceObjectStatus, 'status', errors);
    const objectTypeId = positiveIntParam(query.objectTypeId, 'objectTypeId', errors);
    const joined = booleanParam(query.joined, 'joined', errors);
    const search = textParam(query.search, 'search', MAX_SEARCH_LENGTH, errors);
    errors.throwIfAny();
    await findSystem(this.ds.manager, systemId);
    if (objectTypeId !== null) {
      const known = await this.ds.query(`SELECT 1 FROM connected_system_object_type WHERE id = $1 AND connected_system_id = $2`, [
        objectTypeId,
        systemId,
      ]);
      if (!known.length)
        throw DomainError.validation('objectTypeId', `Object type ${objectTypeId} does not belong to connected system ${systemId}.`);
    }

    const params: unknown[] = [systemId];
    const p = (v: unknown) => `$${params.push(v)}`;
    const where = ['c.connected_system_id = $1'];
    if (status) where.push(`c.status = ${p(status)}`);
    if (objectTypeId !== null) where.push(`c.object_type_id = ${p(objectTypeId)}`);
    if (joined !== null) where.push(`c.metaverse_object_id IS ${joined ? 'NOT ' : ''}NULL`);
    if (search) {
      // lower() on both sides in SQL, so the comparison uses one case mapping; the expressions are the ones an
      // index on (connected_system_id, lower(<column>) text_pattern_ops) would serve.
      const pattern = `lower(${p(prefixPattern(search))}::text)`;
      where.push(
        `(lower(c.external_id) LIKE ${pattern} OR lower(c.secondary_external_id) LIKE ${pattern} OR lower(c.display_name) LIKE ${pattern})`,
      );
    }
    const whereSql = where.join(' AND ');
    const walk = async () =>
      (
        (await this.ds.query(
          `SELECT c.id FROM connected_system_object c WHERE ${whereSql} ORDER BY c.id LIMIT ${paging.pageSize} OFFSET ${paging.offset}`,
          params,
        )) as Array<{ id: string }>
      ).map((r) => r.id);

    let ids: string[];
    let counted: BoundedCount;
    if (where.length === 1) {
      ids = await walk();
      counted = await boundedCount(this.ds, `connected_system_object c WHERE ${whereSql}`, params, paging, ids.length);
    } else {
      const first = await firstMatches(this.ds, `SELECT c.id FROM connected_system_object c WHERE ${whereSql}`, params, paging);
      if (first) {
        ids = first.pageIds;
        counted = { totalCount: first.totalCount, totalCountIsExact: true };
      } else {
        ids = await walk();
        counted = { totalCount: paging.offset + LIST_COUNT_CAP, totalCountIsExact: false };
      }
    }
    const rows: ItemRow[] = ids.length
      ? await this.ds.query(`SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE c.id = ANY($1::uuid[]) ORDER BY c.id`, [ids])
      : [];
    return { ...pageOf(rows.map(itemView), counted.totalCount, paging), totalCountIsExact: counted.totalCountIsExact };
  }

  /** One object with its values, resolved references, join and pending exports; 404 unless it belongs to the system. */
  async get(systemId: number, objectId: string): Promise<ConnectorSpaceObjectDetail> {
    await findSystem(this.ds.manager, systemId);
    const [row]: DetailRow[] = await this.ds.query(
      `SELECT ${ITEM_COLUMNS}, c.sync_pending, c.attributes, c.resolved_references,
              mo.id AS mv_id, mo.display_name AS mv_display_name, mt.name AS mv_type_name
         FROM ${ITEM_FROM}
         LEFT JOIN metaverse_object mo ON mo.id = c.metaverse_object_id
         LEFT JOIN metaverse_object_type mt ON mt.id = mo.type_id
        WHERE c.id = $1 AND c.connected_system_id = $2`,
      [objectId, systemId],
    );
    if (!row) throw DomainError.notFound(`Connector space object ${objectId} of connected system`, systemId);

    const values = Object.entries(row.attributes ?? {});
    const references = row.resolved_references ? Object.entries(row.resolved_references) : null;
    const attributes = await attributeMeta(
      this.ds,
      [...values, ...(references ?? [])].map(([id]) => Number(id)),
    );
    const order = byAttribute(attributes);
    const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);
    return {
      ...itemView(row),
      syncPending: row.sync_pending,
      attributeValues: values
        .map(([id, v]) => ({
          attributeId: Number(id),
          attributeName: attributes.get(Number(id))?.name ?? null,
          attributeType: attributes.get(Number(id))?.type ?? null,
          values: asArray(v),
        }))
        .sort(order),
      resolvedReferences:
        references
          ?.map(([id, v]) => ({
            attributeId: Number(id),
            attributeName: attributes.get(Number(id))?.name ?? null,
            connectedSystemObjectIds: asArray(v) as Array<string | null>,
          }))
          .sort(order) ?? null,
      metaverseObject: row.mv_id ? { id: row.mv_id, displayName: row.mv_display_name, typeName: row.mv_type_name ?? '' } : null,
      pendingExports: await this.pendingExports.forObject(row.id),
    };
  }
}
