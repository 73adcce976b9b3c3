import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DomainError, StoredAttributeDelta } from '@meridian/domain';
import { PageQuery, pagingOf, Paging } from '@meridian/platform';
import {
  ChangeRecordCount,
  ChangeRecordNames,
  CsoChangeRecordRow,
  DeletedCsoRow,
  DeletedMvoRow,
  HistoryStore,
  MvoChangeRecordRow,
} from '@meridian/persistence';
import { DataSource } from 'typeorm';

/** Default and largest page of every history list (spec §8, "Deleted object lists"). */
export const HISTORY_PAGE_SIZE_DEFAULT = 50;
export const HISTORY_PAGE_SIZE_MAX = 1000;

/** The envelope of the history lists: spec 2.1 gives them these four fields only. */
export interface HistoryPage<T> {
  items: T[];
  totalCount: number;
  page: number;
  pageSize: number;
}

/** fromDate and toDate are both inclusive (UTC instants). */
export interface HistoryWindowQuery extends PageQuery {
  fromDate?: Date;
  toDate?: Date;
}

export interface DeletedCsoQuery extends HistoryWindowQuery {
  connectedSystemId?: number;
  externalIdSearch?: string;
}

export interface DeletedMvoQuery extends HistoryWindowQuery {
  objectTypeId?: number;
  displayNameSearch?: string;
}

/** A row as the API shows it: its change time as ISO 8601 text. */
type WithTimeAsText<T extends { changeTime: Date }> = Omit<T, 'changeTime'> & { changeTime: string };

/** Spec 2.13, deleted CSO item. */
export type DeletedCsoView = WithTimeAsText<DeletedCsoRow>;

/** Spec 2.13, deleted MVO item. */
export type DeletedMvoView = WithTimeAsText<DeletedMvoRow>;

/** Spec 2.13, change record count. */
export type ChangeRecordCountView = ChangeRecordCount;

/** One attribute of a connector space object's change record, named from the current schema. */
export interface AttributeChangeView {
  attributeId: number;
  attributeName: string | null;
  oldValues: unknown[];
  newValues: unknown[];
}

/** One attribute of a metaverse object's change record, with the system that contributed the values. */
export interface MetaverseAttributeChangeView extends AttributeChangeView {
  contributedBySystemId: number | null;
  contributedBySystemName: string | null;
}

export interface MetaverseObjectChangeView extends Omit<WithTimeAsText<MvoChangeRecordRow>, 'attributeChanges'> {
  attributeChanges: MetaverseAttributeChangeView[];
}

export interface ConnectorSpaceObjectChangeView extends Omit<WithTimeAsText<CsoChangeRecordRow>, 'attributeChanges'> {
  attributeChanges: AttributeChangeView[];
}

const envelope = <T>(items: T[], totalCount: number, paging: Paging): HistoryPage<T> => ({
  items,
  totalCount,
  page: paging.page,
  pageSize: paging.pageSize,
});

/** Text searches ignore surrounding spaces; an empty search is no filter. */
const searchText = (text: string | undefined) => (text?.trim() ? text.trim() : null);

function checkWindow(query: HistoryWindowQuery): void {
  // A rule across two fields, so it is checked here rather than on the query DTO.
  if (query.fromDate && query.toDate && query.fromDate.getTime() > query.toDate.getTime()) {
    throw DomainError.validation('fromDate', 'fromDate must not be after toDate.');
  }
}

/** The ids of a page's attribute changes that need a name: attributes and contributing systems. */
function idsOf(records: ReadonlyArray<{ attributeChanges: StoredAttributeDelta[] | null }>) {
  const attributes = new Set<number>();
  const systems = new Set<number>();
  for (const r of records)
    for (const d of r.attributeChanges ?? []) {
      attributes.add(d.a);
      if (d.s !== undefined && d.s !== null) systems.add(d.s);
    }
  return { attributes: [...attributes], systems: [...systems] };
}

const attributeChange = (d: StoredAttributeDelta, names: ChangeRecordNames): AttributeChangeView => ({
  attributeId: d.a,
  attributeName: names.attributes.get(d.a) ?? null,
  oldValues: d.o ?? [],
  newValues: d.n ?? [],
});

/**
 * Reads change records (spec 2.13, 4.10; docs/api.md "History"): deleted objects, counts per connected
 * system and one object's history. Lists are newest first with the four-field envelope; names are the
 * current schema's, resolved once per page.
 */
@Injectable()
export class HistoryService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async deletedConnectorSpaceObjects(query: DeletedCsoQuery): Promise<HistoryPage<DeletedCsoView>> {
    checkWindow(query);
    const paging = pagingOf(query, HISTORY_PAGE_SIZE_DEFAULT);
    const { rows, totalCount } = await new HistoryStore(this.ds).deletedCsos({
      connectedSystemId: query.connectedSystemId ?? null,
      externalIdContains: searchText(query.externalIdSearch),
      from: query.fromDate ?? null,
      to: query.toDate ?? null,
      offset: paging.offset,
      pageSize: paging.pageSize,
    });
    return envelope(
      rows.map((r) => ({ ...r, changeTime: r.changeTime.toISOString() })),
      totalCount,
      paging,
    );
  }

  async deletedMetaverseObjects(query: DeletedMvoQuery): Promise<HistoryPage<DeletedMvoView>> {
    checkWindow(query);
    const paging = pagingOf(query, HISTORY_PAGE_SIZE_DEFAULT);
    const { rows, totalCount } = await new HistoryStore(this.ds).deletedMvos({
      objectTypeId: query.objectTypeId ?? null,
      displayNameContains: searchText(query.displayNameSearch),
      from: query.fromDate ?? null,
      to: query.toDate ?? null,
      offset: paging.offset,
      pageSize: paging.pageSize,
    });
    return envelope(
      rows.map((r) => ({ ...r, changeTime: r.changeTime.toISOString() })),
      totalCount,
      paging,
    );
  }

  async countForConnectedSystem(connectedSystemId: number): Promise<ChangeRecordCountView> {
    const count = await new HistoryStore(this.ds).countForConnectedSystem(connectedSystemId);
    if (!count) throw DomainError.notFound('Connected system', connectedSystemId);
    return count;
  }

  /** A metaverse object's change records, newest first; readable after the object is deleted. */
  async metaverseObjectHistory(id: string, query: PageQuery): Promise<HistoryPage<MetaverseObjectChangeView>> {
    const paging = pagingOf(query, HISTORY_PAGE_SIZE_DEFAULT);
    const store = new HistoryStore(this.ds);
    const { rows, totalCount } = await store.mvoChanges(id, paging.offset, paging.pageSize);
    if (totalCount === 0 && !(await store.metaverseObjectExists(id))) throw DomainError.notFound('Metaverse object', id);
    const ids = idsOf(rows);
    const names = await store.metaverseNames(ids.attributes, ids.systems);
    const items = rows.map((r) => ({
      ...r,
      changeTime: r.changeTime.toISOString(),
      attributeChanges: (r.attributeChanges ?? []).map((d) => ({
        ...attributeChange(d, names),
        contributedBySystemId: d.s ?? null,
        contributedBySystemName: d.s === undefined || d.s === null ? null : (names.connectedSystems.get(d.s) ?? null),
      })),
    }));
    return envelope(items, totalCount, paging);
  }

  /** A connector space object's change records, newest first; readable after the object is deleted. */
  async connectorSpaceObjectHistory(
    connectedSystemId: number,
    objectId: string,
    query: PageQuery,
  ): Promise<HistoryPage<ConnectorSpaceObjectChangeView>> {
    const paging = pagingOf(query, HISTORY_PAGE_SIZE_DEFAULT);
    const store = new HistoryStore(this.ds);
    const { rows, totalCount } = await store.csoChanges(connectedSystemId, objectId, paging.offset, paging.pageSize);
    if (totalCount === 0 && !(await store.connectorSpaceObjectExists(connectedSystemId, objectId)))
      throw DomainError.notFound(`Connector space object ${objectId} of connected system`, connectedSystemId);
    const names = await store.connectorSpaceNames(idsOf(rows).attributes);
    const items = rows.map((r) => ({
      ...r,
      changeTime: r.changeTime.toISOString(),
      attributeChanges: (r.attributeChanges ?? []).map((d) => attributeChange(d, names)),
    }));
    return envelope(items, totalCount, paging);
  }
}
