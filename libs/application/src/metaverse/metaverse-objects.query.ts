import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import {
  AttributePlurality,
  AttributeSelection,
  DomainError,
  normaliseFilterValue,
  typedAttributeValue,
  TypedAttributeValue,
  ValidationErrorCollector,
} from '@meridian/domain';
import { PagedResult, pageOf, pagingOf } from '@meridian/platform';
import {
  AttributeDefinition,
  LIST_COUNT_CAP,
  MetaverseObjectStore,
  MetaverseSchemaStore,
  StoredAttributeValues,
} from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';

/** Query of GET /metaverse/objects (spec 4.7), validated; blank text means "not given". */
export interface MetaverseObjectListQuery {
  page?: number;
  pageSize?: number;
  objectTypeId?: number;
  search?: string;
  /** Which attributes each item carries (absent: none). */
  attributes?: AttributeSelection;
  /** With filterAttributeValue: only objects with this value of this attribute. */
  filterAttributeName?: string;
  filterAttributeValue?: string;
}

export interface MetaverseObjectListItem {
  id: string;
  created: string;
  displayName: string | null;
  status: string;
  typeId: number;
  typeName: string;
  attributes?: Record<string, unknown>;
}

/** The list envelope (spec 2.1) plus whether totalCount is exact (see METAVERSE_LIST_COUNT_CAP). */
export interface MetaverseObjectListPage extends PagedResult<MetaverseObjectListItem> {
  totalCountIsExact: boolean;
}

export interface MetaverseAttributeValueView extends TypedAttributeValue {
  id: string;
  attributeId: number;
  attributeName: string;
  attributeType: string;
  attributePlurality: string;
  referenceValueDisplayName: string | null;
  contributedBySystemId: number | null;
  contributedBySystemName: string | null;
}

export interface MetaverseObjectDetailView {
  id: string;
  created: string;
  lastUpdated: string | null;
  displayName: string | null;
  status: string;
  origin: string;
  lastConnectorDisconnectedDate: string | null;
  isPendingDeletion: boolean;
  deletionEligibleDate: string | null;
  type: { id: number; name: string };
  attributeValues: MetaverseAttributeValueView[];
  connectedSystemObjects: Array<{ id: string; connectedSystemId: number; connectedSystemName: string; displayName: string | null }>;
}

/** How far past the start of the requested page the object list counts (see LIST_COUNT_CAP). */
export const METAVERSE_LIST_COUNT_CAP = LIST_COUNT_CAP;

/** Orders attribute names for display; one instance, since localeCompare with options builds a collator per call. */
const BY_NAME = new Intl.Collator('en', { sensitivity: 'base' });

type StoredValues = StoredAttributeValues;
type AttributeMeta = AttributeDefinition;

/** A stable id for a value: a name-based UUID of object, attribute and position (values have no row of their own). */
function valueId(objectId: string, attributeId: number, index: number): string {
  const h = createHash('sha1').update(`${objectId}:${attributeId}:${index}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Reads metaverse objects: the paged, filtered list and the full detail (spec 2.10). */
@Injectable()
export class MetaverseObjectsQuery {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async list(query: MetaverseObjectListQuery): Promise<MetaverseObjectListPage> {
    const { paging, objectTypeId, search, selected, filter, typeNames, byId } = await this.resolveListQuery(query);

    const { rows, totalCount, totalCountIsExact } = await new MetaverseObjectStore(this.ds.manager).list({
      offset: paging.offset,
      pageSize: paging.pageSize,
      countCap: METAVERSE_LIST_COUNT_CAP,
      objectTypeId,
      allObjectTypeIds: [...typeNames.keys()],
      search,
      attributeValue: filter && { attributeId: filter.attr.id, isIndexed: filter.attr.isIndexed, value: filter.value },
      withAttributes: selected !== null,
    });
    const items = rows.map((r): MetaverseObjectListItem => {
      const item: MetaverseObjectListItem = {
        id: r.id,
        created: r.created.toISOString(),
        displayName: r.displayName,
        status: r.status,
        typeId: r.typeId,
        typeName: typeNames.get(r.typeId) ?? '',
      };
      if (selected) item.attributes = this.dictionary(r.attributes ?? {}, selected, byId);
      return item;
    });
    return { ...pageOf(items, totalCount, paging), totalCountIsExact };
  }

  /** Checks the list query against the schema (every problem at once, by parameter) and resolves its names. */
  private async resolveListQuery(query: MetaverseObjectListQuery) {
    const paging = pagingOf(query, 25);
    const errors = new ValidationErrorCollector();
    const objectTypeId = query.objectTypeId ?? null;
    const search = query.search?.trim() || null;
    const selection: AttributeSelection = query.attributes ?? { kind: 'none' };
    const filterName = query.filterAttributeName?.trim() || null;
    const filterValue = query.filterAttributeValue?.trim() ? query.filterAttributeValue : null;
    // The filter is a pair: one half alone is refused rather than ignored.
    if (filterName && !filterValue) errors.add('filterAttributeValue', 'filterAttributeValue is required with filterAttributeName.');
    if (filterValue && !filterName) errors.add('filterAttributeName', 'filterAttributeName is required with filterAttributeValue.');

    const needAttributes = selection.kind !== 'none';
    const schema = new MetaverseSchemaStore(this.ds);
    const [types, attributes] = await Promise.all([
      schema.objectTypeNames(),
      needAttributes || filterName ? schema.attributeDefinitions() : Promise.resolve([]),
    ]);
    const typeNames = new Map(types.map((t) => [t.id, t.name]));
    if (objectTypeId !== null && !typeNames.has(objectTypeId)) {
      errors.add('objectTypeId', `Metaverse object type ${objectTypeId} does not exist.`);
    }
    const byName = new Map(attributes.map((a) => [a.name.toLowerCase(), a]));
    const byId = new Map(attributes.map((a) => [String(a.id), a]));
    let selected: AttributeMeta[] | 'all' | null = null;
    if (selection.kind === 'all') selected = 'all';
    if (selection.kind === 'named') {
      const unknown = selection.names.filter((n) => !byName.has(n.toLowerCase()));
      if (unknown.length) errors.add('attributes', `Unknown attribute(s): ${unknown.join(', ')}.`);
      selected = selection.names.map((n) => byName.get(n.toLowerCase())!).filter(Boolean);
    }
    let filter: { attr: AttributeMeta; value: string } | null = null;
    if (filterName && filterValue) {
      const attr = byName.get(filterName.toLowerCase());
      if (!attr) errors.add('filterAttributeName', `Unknown attribute "${filterName}".`);
      else {
        const normalised = normaliseFilterValue(attr.type, filterValue);
        if ('error' in normalised) errors.add('filterAttributeValue', normalised.error);
        else filter = { attr, value: normalised.value };
      }
    }
    errors.throwIfAny();
    return { paging, objectTypeId, search, selected, filter, typeNames, byId };
  }

  async get(id: string, m: EntityManager = this.ds.manager): Promise<MetaverseObjectDetailView> {
    const row = await new MetaverseObjectStore(m).detail(id);
    if (!row) throw DomainError.notFound('Metaverse object', id);
    const defs = new Map(row.attributeDefinitions.map((a) => [String(a.id), a]));
    const systems = new Map(row.systems.map((s) => [s.id, s.name]));
    const refs = new Map(row.references.map((r) => [r.id, r.displayName]));
    const values: MetaverseAttributeValueView[] = [];
    const stored = row.attributes;
    const ordered = [...defs.values()].sort((a, b) => BY_NAME.compare(a.name, b.name) || a.id - b.id);
    for (const def of ordered) {
      (stored[String(def.id)] ?? []).forEach((entry, index) => {
        const typed = typedAttributeValue(def.type, entry.v);
        const systemId = typeof entry.s === 'number' ? entry.s : null;
        values.push({
          id: valueId(row.id, def.id, index),
          attributeId: def.id,
          attributeName: def.name,
          attributeType: def.type,
          attributePlurality: def.plurality,
          ...typed,
          referenceValueDisplayName: typed.referenceValueId ? (refs.get(typed.referenceValueId) ?? null) : null,
          contributedBySystemId: systemId,
          contributedBySystemName: systemId === null ? null : (systems.get(systemId) ?? null),
        });
      });
    }
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    return {
      id: row.id,
      created: row.created.toISOString(),
      lastUpdated: iso(row.lastUpdated),
      displayName: row.displayName,
      status: row.status,
      origin: row.origin,
      lastConnectorDisconnectedDate: iso(row.lastConnectorDisconnectedDate),
      isPendingDeletion: row.lastConnectorDisconnectedDate !== null,
      deletionEligibleDate: iso(row.deletionEligibleDate),
      type: { id: row.typeId, name: row.typeName },
      attributeValues: values,
      connectedSystemObjects: row.connectedSystemObjects,
    };
  }

  /** The `attributes` dictionary of a list item: name → value (single) or array (multi). */
  private dictionary(stored: StoredValues, selected: AttributeMeta[] | 'all', byId: Map<string, AttributeMeta>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const shape = (a: AttributeMeta) => {
      const values = (stored[String(a.id)] ?? []).map((e) => e.v);
      return a.plurality === AttributePlurality.Multi ? values : (values[0] ?? null);
    };
    if (selected === 'all') {
      const present = Object.keys(stored)
        .map((k) => byId.get(k))
        .filter((a): a is AttributeMeta => !!a && (stored[String(a.id)]?.length ?? 0) > 0);
      for (const a of present.sort((x, y) => BY_NAME.compare(x.name, y.name))) out[a.name] = shape(a);
    } else {
      for (const a of selected) out[a.name] = shape(a);
    }
    return out;
  }
}
