import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import {
  AttributePlurality,
  DomainError,
  normaliseFilterValue,
  parseAttributeSelection,
  searchPatterns,
  typedAttributeValue,
  TypedAttributeValue,
  ValidationErrorCollector,
} from '@meridian/domain';
import { PagedResult, pageOf, parsePaging } from '@meridian/platform';
import { DataSource, EntityManager } from 'typeorm';
import { boundedCount, firstMatches, LIST_COUNT_CAP } from '../common/bounded-count';
import { lookupValueSql, MAX_LOOKUP_VALUE_LENGTH } from './metaverse-lookups';

/** Query of GET /metaverse/objects (spec 4.7); values as they come from the query string (or already typed). */
export interface MetaverseObjectListQuery {
  page?: unknown;
  pageSize?: unknown;
  objectTypeId?: unknown;
  search?: unknown;
  attributes?: unknown;
  filterAttributeName?: unknown;
  filterAttributeValue?: unknown;
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

type StoredValues = Record<string, Array<{ v: unknown; s?: number | null }>>;
interface AttributeMeta {
  id: number;
  name: string;
  type: string;
  plurality: string;
  is_indexed: boolean;
}

/** A stable id for a value: a name-based UUID of object, attribute and position (values have no row of their own). */
function valueId(objectId: string, attributeId: number, index: number): string {
  const h = createHash('sha1').update(`${objectId}:${attributeId}:${index}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function positiveInt(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 1 && raw <= 2_147_483_647 ? raw : NaN;
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw.trim())) return NaN;
  const n = Number(raw);
  return n >= 1 && n <= 2_147_483_647 ? n : NaN;
}

/** Reads metaverse objects: the paged, filtered list and the full detail (spec 2.10). */
@Injectable()
export class MetaverseObjectsQuery {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async list(query: MetaverseObjectListQuery): Promise<MetaverseObjectListPage> {
    const { paging, objectTypeId, search, selected, filter, typeNames, byId } = await this.parseListQuery(query);

    // Every list is ordered by id: whatever the filter, that order is an index walk (docs/metaverse.md) —
    // the primary key, (type_id, id), or the lookup key (attribute_id, value_normalised, object_id).
    const params: unknown[] = [];
    const p = (v: unknown) => `$${params.push(v)}`;
    const where: string[] = [];
    let from = 'metaverse_object o';
    let order = 'o.id';
    if (filter?.attr.is_indexed) {
      from = 'metaverse_object_lookup l JOIN metaverse_object o ON o.id = l.object_id';
      order = 'l.object_id';
      where.push(`l.attribute_id = ${p(filter.attr.id)}`, `l.value_normalised = ${lookupValueSql(`${p(filter.value)}::text`)}`);
    }
    if (objectTypeId !== null) where.push(`o.type_id = ${p(objectTypeId)}`);
    // lower() on both sides in SQL, so the comparison uses one case mapping; served by the trigram index.
    if (search)
      where.push(
        `(${searchPatterns(search)
          .map((pattern) => `lower(o.display_name) LIKE lower(${p(pattern)})`)
          .join(' OR ')})`,
      );
    // Lookup rows keep the first 512 characters, so a longer value is confirmed against the stored one;
    // an attribute without an index is read from every object in scope (documented as slow at scale).
    if (filter && (!filter.attr.is_indexed || filter.value.length > MAX_LOOKUP_VALUE_LENGTH)) {
      const key = `${p(String(filter.attr.id))}::text`;
      where.push(
        `o.attributes ? ${key}`,
        `EXISTS (SELECT 1 FROM jsonb_array_elements(o.attributes -> ${key}) e WHERE lower(e ->> 'v') = lower(${p(filter.value)}::text))`,
      );
    }
    const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const columns = `o.id, o.created, o.display_name, o.status, o.type_id${selected ? ', o.attributes' : ''}`;
    const limit = paging.offset + METAVERSE_LIST_COUNT_CAP;
    // The page: ids from the index walk in id order (index-only where it can be), then the rows of those ids alone.
    const pageSql = `SELECT ${columns} FROM metaverse_object o
       JOIN (SELECT o.id FROM ${from} ${whereSql} ORDER BY ${order} LIMIT ${paging.pageSize} OFFSET ${paging.offset}) p ON p.id = o.id ORDER BY o.id`;
    type Row = { id: string; created: Date; display_name: string | null; status: string; type_id: number; attributes?: StoredValues };
    let rows: Row[];
    let totalCount: number;
    let totalCountIsExact = true;
    if (!search && !(filter && !filter.attr.is_indexed)) {
      // Type and indexed-attribute filters: the id order is an index, so the walk is cheap whatever matches;
      // a short page ends the list, otherwise the count is an index-only walk up to the bound.
      rows = await this.ds.query(pageSql, params);
      ({ totalCount, totalCountIsExact } = await boundedCount(
        this.ds,
        `${from} ${whereSql}`,
        params,
        paging,
        rows.length,
        METAVERSE_LIST_COUNT_CAP,
      ));
    } else {
      // A search (or an unindexed filter): where the matches lie in id order is unknown, and the planner
      // estimates trigram matches badly either way. So the plan is chosen from what is learnt, not guessed:
      ({ rows, totalCount, totalCountIsExact } = await this.ds.transaction(async (m) => {
        // 1. At most limit + 1 matches in any order, through the trigram index (bitmap scans only: the cost
        //    is the index's candidates plus at most limit + 1 rows), with the page cut from them.
        if (search) await m.query(`SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off`);
        const first = await firstMatches(m, `SELECT o.id FROM ${from} ${whereSql}`, params, paging, METAVERSE_LIST_COUNT_CAP);
        if (first) {
          const found: Row[] = first.pageIds.length
            ? await m.query(`SELECT ${columns} FROM metaverse_object o WHERE o.id = ANY($1::uuid[]) ORDER BY o.id`, [first.pageIds])
            : [];
          return { rows: found, totalCount: first.totalCount, totalCountIsExact: true };
        }
        // 2. More than that: at least (offset + cap) / N of the objects match, so a walk in id order reaches
        //    the page within a bounded number of entries — index-only over (type_id, id) INCLUDE
        //    (display_name), one walk per type when no type is given, merged.
        if (!search) return { rows: (await m.query(pageSql, params)) as Row[], totalCount: limit, totalCountIsExact: false };
        await m.query(`SET LOCAL enable_indexscan = on; SET LOCAL enable_indexonlyscan = on; SET LOCAL enable_bitmapscan = off`);
        const walk =
          objectTypeId !== null
            ? pageSql
            : `SELECT ${columns} FROM metaverse_object o JOIN (SELECT id FROM (${[...typeNames.keys()]
                .map(
                  (t) =>
                    `(SELECT o.id FROM ${from} ${whereSql} AND o.type_id = ${Number(t)} ORDER BY ${order} LIMIT ${paging.offset + paging.pageSize})`,
                )
                .join(' UNION ALL ')}) u
          ORDER BY id LIMIT ${paging.pageSize} OFFSET ${paging.offset}) p ON p.id = o.id ORDER BY o.id`;
        return { rows: (await m.query(walk, params)) as Row[], totalCount: limit, totalCountIsExact: false };
      }));
    }

    const items = rows.map((r): MetaverseObjectListItem => {
      const item: MetaverseObjectListItem = {
        id: r.id,
        created: r.created.toISOString(),
        displayName: r.display_name,
        status: r.status,
        typeId: r.type_id,
        typeName: typeNames.get(r.type_id) ?? '',
      };
      if (selected) item.attributes = this.dictionary(r.attributes ?? {}, selected, byId);
      return item;
    });
    return { ...pageOf(items, totalCount, paging), totalCountIsExact };
  }

  /** Validates the list query (every problem at once, by parameter) and resolves names against the schema. */
  private async parseListQuery(query: MetaverseObjectListQuery) {
    const paging = parsePaging(query, { pageSize: 25, maxPageSize: 100 });
    const errors = new ValidationErrorCollector();
    let objectTypeId: number | null = null;
    if (query.objectTypeId !== undefined && query.objectTypeId !== null && query.objectTypeId !== '') {
      objectTypeId = positiveInt(query.objectTypeId);
      if (Number.isNaN(objectTypeId)) errors.add('objectTypeId', 'objectTypeId must be a positive whole number.');
    }
    let search: string | null = null;
    if (query.search !== undefined && query.search !== null) {
      if (typeof query.search !== 'string' || query.search.length > 200)
        errors.add('search', 'search must be text of at most 200 characters.');
      else search = query.search.trim() || null;
    }
    const selection = parseAttributeSelection(query.attributes);
    if ('error' in selection) errors.add('attributes', selection.error);
    const filterName =
      typeof query.filterAttributeName === 'string' && query.filterAttributeName.trim() ? query.filterAttributeName.trim() : null;
    const filterValue =
      typeof query.filterAttributeValue === 'string' && query.filterAttributeValue.trim() ? query.filterAttributeValue : null;
    for (const [field, raw] of [
      ['filterAttributeName', query.filterAttributeName],
      ['filterAttributeValue', query.filterAttributeValue],
    ] as const) {
      if (raw !== undefined && raw !== null && typeof raw !== 'string') errors.add(field, `${field} must be text.`);
    }
    if (filterName && !filterValue) errors.add('filterAttributeValue', 'filterAttributeValue is required with filterAttributeName.');
    if (filterValue && !filterName) errors.add('filterAttributeName', 'filterAttributeName is required with filterAttributeValue.');
    if (filterValue && filterValue.length > 4000)
      errors.add('filterAttributeValue', 'filterAttributeValue must be at most 4000 characters.');

    const needAttributes = !('error' in selection) && selection.kind !== 'none';
    const [types, attributes] = await Promise.all([
      this.ds.query(`SELECT id, name FROM metaverse_object_type`) as Promise<Array<{ id: number; name: string }>>,
      (needAttributes || filterName
        ? this.ds.query(`SELECT id, name, type, plurality, is_indexed FROM metaverse_attribute`)
        : Promise.resolve([])) as Promise<AttributeMeta[]>,
    ]);
    const typeNames = new Map(types.map((t) => [t.id, t.name]));
    if (objectTypeId !== null && !Number.isNaN(objectTypeId) && !typeNames.has(objectTypeId)) {
      errors.add('objectTypeId', `Metaverse object type ${objectTypeId} does not exist.`);
    }
    const byName = new Map(attributes.map((a) => [a.name.toLowerCase(), a]));
    const byId = new Map(attributes.map((a) => [String(a.id), a]));
    let selected: AttributeMeta[] | 'all' | null = null;
    if (!('error' in selection) && selection.kind === 'all') selected = 'all';
    if (!('error' in selection) && selection.kind === 'named') {
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
    const [row] = await m.query(
      `SELECT o.id, o.created, o.last_updated, o.display_name, o.status, o.origin, o.last_connector_disconnected_date, o.deletion_eligible_date,
              o.type_id, t.name AS type_name, o.attributes,
              (SELECT COALESCE(json_agg(json_build_object('id', a.id, 'name', a.name, 'type', a.type, 'plurality', a.plurality)), '[]')
                 FROM metaverse_attribute a WHERE o.attributes ? a.id::text) AS attribute_defs,
              (SELECT COALESCE(json_agg(json_build_object('id', cs.id, 'name', cs.name)), '[]') FROM connected_system cs
                WHERE cs.id IN (SELECT (e ->> 's')::int FROM jsonb_each(o.attributes) kv, jsonb_array_elements(kv.value) e
                                 WHERE jsonb_typeof(e -> 's') = 'number')) AS systems,
              (SELECT COALESCE(json_agg(json_build_object('id', r.id, 'displayName', r.display_name)), '[]') FROM metaverse_object r
                WHERE r.id IN (SELECT (e ->> 'v')::uuid FROM metaverse_attribute a, jsonb_array_elements(o.attributes -> a.id::text) e
                                WHERE a.type = 'Reference' AND o.attributes ? a.id::text
                                  AND e ->> 'v' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')) AS refs,
              (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'connectedSystemId', c.connected_system_id, 'connectedSystemName', cs.name,
                                                          'displayName', COALESCE(c.display_name, c.external_id)) ORDER BY cs.name, c.id), '[]')
                 FROM connected_system_object c JOIN connected_system cs ON cs.id = c.connected_system_id WHERE c.metaverse_object_id = o.id) AS csos
         FROM metaverse_object o JOIN metaverse_object_type t ON t.id = o.type_id
        WHERE o.id = $1`,
      [id],
    );
    if (!row) throw DomainError.notFound('Metaverse object', id);
    const defs = new Map<string, { id: number; name: string; type: string; plurality: string }>(
      (row.attribute_defs as Array<{ id: number; name: string; type: string; plurality: string }>).map((a) => [String(a.id), a]),
    );
    const systems = new Map<number, string>((row.systems as Array<{ id: number; name: string }>).map((s) => [s.id, s.name]));
    const refs = new Map<string, string | null>(
      (row.refs as Array<{ id: string; displayName: string | null }>).map((r) => [r.id, r.displayName]),
    );
    const values: MetaverseAttributeValueView[] = [];
    const stored = row.attributes as StoredValues;
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
      lastUpdated: iso(row.last_updated),
      displayName: row.display_name,
      status: row.status,
      origin: row.origin,
      lastConnectorDisconnectedDate: iso(row.last_connector_disconnected_date),
      isPendingDeletion: row.last_connector_disconnected_date !== null,
      deletionEligibleDate: iso(row.deletion_eligible_date),
      type: { id: row.type_id, name: row.type_name },
      attributeValues: values,
      connectedSystemObjects: row.csos,
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
