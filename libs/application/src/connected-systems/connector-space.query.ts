import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ConnectorSpaceObjectStatus, DomainError } from '@meridian/domain';
import { PagedResult, pageOf, pagingOf } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { AttributeMeta, ConnectedSystemStore, ConnectorSpaceItemRow, ConnectorSpaceReadStore } from '@meridian/persistence';
import { prefixPattern } from '../common/query-params';
import { findSystem } from './connected-system.lookup';
import { PendingExportView } from './pending-export.views';
import { PendingExportsQuery } from './pending-exports.query';

/** The list filters, each already of its type; absent means "any". */
export interface ConnectorSpaceListQuery {
  page?: number;
  pageSize?: number;
  /** Prefix of the external ID, secondary external ID or display name; blank means no search. */
  search?: string;
  status?: ConnectorSpaceObjectStatus;
  objectTypeId?: number;
  joined?: boolean;
}

/** A list row as the API answers it: timestamps as ISO text. */
export interface ConnectorSpaceObjectListItem extends Omit<ConnectorSpaceItemRow, 'created' | 'lastUpdated'> {
  created: string;
  lastUpdated: string | null;
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

function itemView(r: ConnectorSpaceItemRow): ConnectorSpaceObjectListItem {
  return {
    id: r.id,
    externalId: r.externalId,
    secondaryExternalId: r.secondaryExternalId,
    displayName: r.displayName,
    objectTypeId: r.objectTypeId,
    objectTypeName: r.objectTypeName,
    status: r.status,
    metaverseObjectId: r.metaverseObjectId,
    joinType: r.joinType,
    created: r.created.toISOString(),
    lastUpdated: r.lastUpdated?.toISOString() ?? null,
    pendingExportCount: r.pendingExportCount,
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
    const paging = pagingOf(query, 25);
    const { status = null, objectTypeId = null, joined = null } = query;
    const search = query.search?.trim();
    await findSystem(this.ds.manager, systemId);
    if (objectTypeId !== null && !(await new ConnectedSystemStore(this.ds).hasObjectType(systemId, objectTypeId)))
      throw DomainError.validation('objectTypeId', `Object type ${objectTypeId} does not belong to connected system ${systemId}.`);
    const { rows, totalCount, totalCountIsExact } = await new ConnectorSpaceReadStore(this.ds).page(
      systemId,
      { status, objectTypeId, joined, searchPattern: search ? prefixPattern(search) : null },
      paging,
    );
    return { ...pageOf(rows.map(itemView), totalCount, paging), totalCountIsExact };
  }

  /** One object with its values, resolved references, join and pending exports; 404 unless it belongs to the system. */
  async get(systemId: number, objectId: string): Promise<ConnectorSpaceObjectDetail> {
    await findSystem(this.ds.manager, systemId);
    const row = await new ConnectorSpaceReadStore(this.ds).detail(systemId, objectId);
    if (!row) throw DomainError.notFound(`Connector space object ${objectId} of connected system`, systemId);

    const values = Object.entries(row.attributes ?? {});
    const references = row.resolvedReferences ? Object.entries(row.resolvedReferences) : null;
    const attributes = await new ConnectedSystemStore(this.ds).attributeMeta([...values, ...(references ?? [])].map(([id]) => Number(id)));
    const order = byAttribute(attributes);
    const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);
    return {
      ...itemView(row),
      syncPending: row.syncPending,
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
      metaverseObject: row.mvId ? { id: row.mvId, displayName: row.mvDisplayName, typeName: row.mvTypeName ?? '' } : null,
      pendingExports: await this.pendingExports.forObject(row.id),
    };
  }
}
