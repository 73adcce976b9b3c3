import { containsPattern, CsoChangeType, MvoChangeType, StoredAttributeDelta } from '@meridian/domain';
import { uuidV7 } from '../bulk/uuid-v7';
import { ChangeOrigin, MVO_CHANGE_COLUMNS, MvoChangeRow } from '../engine/change-record.store';
import type { SqlRunner } from '../sql/sql-runner';

/** Filters every list of change records shares: a time window (both bounds inclusive) and the page. */
export interface ChangeWindow {
  from: Date | null;
  to: Date | null;
  offset: number;
  pageSize: number;
}

export interface DeletedCsoFilter extends ChangeWindow {
  connectedSystemId: number | null;
  /** External ID contains this text, ignoring case; `%`, `_` and `\` are literal. */
  externalIdContains: string | null;
}

export interface DeletedMvoFilter extends ChangeWindow {
  objectTypeId: number | null;
  /** Display name contains this text, ignoring case; `%`, `_` and `\` are literal. */
  displayNameContains: string | null;
}

/** A connector space object's Deleted record, with the names the deleted-objects list shows. */
export interface DeletedCsoRow {
  id: string;
  externalId: string | null;
  displayName: string | null;
  objectTypeName: string | null;
  connectedSystemId: number;
  connectedSystemName: string | null;
  changeTime: Date;
  initiatedByType: string;
  initiatedByName: string | null;
}

export interface DeletedMvoRow {
  id: string;
  displayName: string | null;
  objectTypeName: string | null;
  objectTypeId: number;
  changeTime: Date;
  initiatedByType: string;
  initiatedByName: string | null;
}

/** Fields of a change record that both kinds have, with the run profile's and system's current names. */
interface ChangeRecordRow {
  id: string;
  changeType: string;
  changeTime: Date;
  attributeChanges: StoredAttributeDelta[] | null;
  connectedSystemId: number | null;
  connectedSystemName: string | null;
  activityId: string | null;
  runProfileId: number | null;
  runProfileName: string | null;
  initiatedByType: string;
  initiatedByName: string | null;
}

export interface MvoChangeRecordRow extends ChangeRecordRow {
  changeType: MvoChangeType;
  connectedSystemObjectId: string | null;
}

export interface CsoChangeRecordRow extends ChangeRecordRow {
  changeType: CsoChangeType;
  connectedSystemId: number;
  externalId: string | null;
  displayName: string | null;
}

/** One page of rows and how many match in all. */
export interface ChangeRecordPage<T> {
  rows: T[];
  totalCount: number;
}

export interface ChangeRecordCount {
  connectedSystemId: number;
  connectedSystemName: string;
  changeRecordCount: number;
}

/** Current names of the ids a page of change records uses (absent: gone from the schema). */
export interface ChangeRecordNames {
  attributes: Map<number, string>;
  connectedSystems: Map<number, string>;
}

/** The origin columns of a change record as read back. */
const ORIGIN = `c.activity_id AS "activityId", c.run_profile_id AS "runProfileId", rp.name AS "runProfileName",
  c.initiated_by_type AS "initiatedByType", c.initiated_by_name AS "initiatedByName"`;

/** `(field, value)` conditions joined with AND, numbering parameters as they are added. */
class Conditions {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  constructor(first: string) {
    this.parts.push(first);
  }

  add(sql: (param: string) => string, value: unknown): void {
    if (value === null || value === undefined) return;
    this.parts.push(sql(`$${this.params.push(value)}`));
  }

  get where(): string {
    return `WHERE ${this.parts.join(' AND ')}`;
  }
}

/**
 * The time window of a list. The API speaks milliseconds while a record written by SQL can carry
 * microseconds, so `to` covers its whole millisecond: a record listed at 10:00:00.123Z is in a window
 * that ends at 10:00:00.123Z.
 */
function addWindow(c: Conditions, w: ChangeWindow): void {
  c.add((p) => `c.change_time >= ${p}`, w.from);
  c.add((p) => `c.change_time < ${p}::timestamptz + interval '1 millisecond'`, w.to);
}

const count = (rows: Array<{ count: string | number }>) => Number(rows[0]?.count ?? 0);

/**
 * Reads change records (spec 2.13, 4.10): deleted-object lists through the partial indexes of Deleted
 * records (ix_cso_change_deleted, ix_mvo_change_deleted on change_time), one object's records through
 * ix_cso_change_object / ix_mvo_change_object newest first (UUID v7 ids are time ordered), and counts per
 * connected system. Names come from the current schema, joined to the page's rows only.
 */
export class HistoryStore {
  constructor(private readonly db: SqlRunner) {}

  async deletedCsos(f: DeletedCsoFilter): Promise<ChangeRecordPage<DeletedCsoRow>> {
    const c = new Conditions(`c.change_type = '${CsoChangeType.Deleted}'`);
    c.add((p) => `c.connected_system_id = ${p}`, f.connectedSystemId);
    c.add((p) => `c.external_id ILIKE ${p}`, f.externalIdContains === null ? null : containsPattern(f.externalIdContains));
    addWindow(c, f);
    const [rows, total] = await Promise.all([
      this.db.query<DeletedCsoRow[]>(
        `SELECT c.connected_system_object_id AS id, c.external_id AS "externalId", c.display_name AS "displayName",
                coalesce(c.object_type_name, t.name) AS "objectTypeName", c.connected_system_id AS "connectedSystemId",
                coalesce(c.connected_system_name, s.name) AS "connectedSystemName", c.change_time AS "changeTime",
                c.initiated_by_type AS "initiatedByType", c.initiated_by_name AS "initiatedByName"
           FROM (SELECT * FROM connected_system_object_change c ${c.where}
                  ORDER BY c.change_time DESC, c.id DESC LIMIT ${f.pageSize} OFFSET ${f.offset}) c
           LEFT JOIN connected_system_object_type t ON t.id = c.object_type_id
           LEFT JOIN connected_system s ON s.id = c.connected_system_id
          ORDER BY c.change_time DESC, c.id DESC`,
        c.params,
      ),
      this.db.query<Array<{ count: string }>>(`SELECT count(*) AS count FROM connected_system_object_change c ${c.where}`, c.params),
    ]);
    return { rows, totalCount: count(total) };
  }

  async deletedMvos(f: DeletedMvoFilter): Promise<ChangeRecordPage<DeletedMvoRow>> {
    const c = new Conditions(`c.change_type = '${MvoChangeType.Deleted}'`);
    c.add((p) => `c.object_type_id = ${p}`, f.objectTypeId);
    c.add((p) => `c.display_name ILIKE ${p}`, f.displayNameContains === null ? null : containsPattern(f.displayNameContains));
    addWindow(c, f);
    const [rows, total] = await Promise.all([
      this.db.query<DeletedMvoRow[]>(
        `SELECT c.metaverse_object_id AS id, c.display_name AS "displayName", coalesce(c.object_type_name, t.name) AS "objectTypeName",
                c.object_type_id AS "objectTypeId", c.change_time AS "changeTime",
                c.initiated_by_type AS "initiatedByType", c.initiated_by_name AS "initiatedByName"
           FROM (SELECT * FROM metaverse_object_change c ${c.where}
                  ORDER BY c.change_time DESC, c.id DESC LIMIT ${f.pageSize} OFFSET ${f.offset}) c
           LEFT JOIN metaverse_object_type t ON t.id = c.object_type_id
          ORDER BY c.change_time DESC, c.id DESC`,
        c.params,
      ),
      this.db.query<Array<{ count: string }>>(`SELECT count(*) AS count FROM metaverse_object_change c ${c.where}`, c.params),
    ]);
    return { rows, totalCount: count(total) };
  }

  /** The number of change records of a connected system (an index-only count of ix_cso_change_object), or null when the system does not exist. */
  async countForConnectedSystem(connectedSystemId: number): Promise<ChangeRecordCount | null> {
    const [row] = await this.db.query<Array<{ id: number; name: string; count: string }>>(
      `SELECT s.id, s.name, (SELECT count(*) FROM connected_system_object_change c WHERE c.connected_system_id = s.id) AS count
         FROM connected_system s WHERE s.id = $1`,
      [connectedSystemId],
    );
    return row ? { connectedSystemId: row.id, connectedSystemName: row.name, changeRecordCount: Number(row.count) } : null;
  }

  /** One page of a metaverse object's change records, newest first, and how many it has. */
  async mvoChanges(metaverseObjectId: string, offset: number, pageSize: number): Promise<ChangeRecordPage<MvoChangeRecordRow>> {
    const [rows, total] = await Promise.all([
      this.db.query<MvoChangeRecordRow[]>(
        `SELECT c.id, c.change_type AS "changeType", c.change_time AS "changeTime", c.attribute_changes AS "attributeChanges",
                c.connected_system_id AS "connectedSystemId", s.name AS "connectedSystemName",
                c.connected_system_object_id AS "connectedSystemObjectId", ${ORIGIN}
           FROM (SELECT * FROM metaverse_object_change WHERE metaverse_object_id = $1
                  ORDER BY id DESC LIMIT ${pageSize} OFFSET ${offset}) c
           LEFT JOIN connected_system s ON s.id = c.connected_system_id
           LEFT JOIN connected_system_run_profile rp ON rp.id = c.run_profile_id
          ORDER BY c.id DESC`,
        [metaverseObjectId],
      ),
      this.db.query<Array<{ count: string }>>(`SELECT count(*) AS count FROM metaverse_object_change WHERE metaverse_object_id = $1`, [
        metaverseObjectId,
      ]),
    ]);
    return { rows, totalCount: count(total) };
  }

  /** One page of a connector space object's change records, newest first, and how many it has. */
  async csoChanges(
    connectedSystemId: number,
    objectId: string,
    offset: number,
    pageSize: number,
  ): Promise<ChangeRecordPage<CsoChangeRecordRow>> {
    const [rows, total] = await Promise.all([
      this.db.query<CsoChangeRecordRow[]>(
        `SELECT c.id, c.change_type AS "changeType", c.change_time AS "changeTime", c.attribute_changes AS "attributeChanges",
                c.connected_system_id AS "connectedSystemId", coalesce(s.name, c.connected_system_name) AS "connectedSystemName",
                c.external_id AS "externalId", c.display_name AS "displayName", ${ORIGIN}
           FROM (SELECT * FROM connected_system_object_change WHERE connected_system_id = $1 AND connected_system_object_id = $2
                  ORDER BY id DESC LIMIT ${pageSize} OFFSET ${offset}) c
           LEFT JOIN connected_system s ON s.id = c.connected_system_id
           LEFT JOIN connected_system_run_profile rp ON rp.id = c.run_profile_id
          ORDER BY c.id DESC`,
        [connectedSystemId, objectId],
      ),
      this.db.query<Array<{ count: string }>>(
        `SELECT count(*) AS count FROM connected_system_object_change WHERE connected_system_id = $1 AND connected_system_object_id = $2`,
        [connectedSystemId, objectId],
      ),
    ]);
    return { rows, totalCount: count(total) };
  }

  /** Current names of metaverse attributes and connected systems, in one statement for a page's ids. */
  async metaverseNames(attributeIds: readonly number[], connectedSystemIds: readonly number[]): Promise<ChangeRecordNames> {
    return this.names('metaverse_attribute', attributeIds, connectedSystemIds);
  }

  /** Current names of connector space attributes, in one statement for a page's ids. */
  async connectorSpaceNames(attributeIds: readonly number[]): Promise<ChangeRecordNames> {
    return this.names('connected_system_attribute', attributeIds, []);
  }

  async metaverseObjectExists(id: string): Promise<boolean> {
    const [row] = await this.db.query<Array<{ found: boolean }>>(`SELECT EXISTS (SELECT 1 FROM metaverse_object WHERE id = $1) AS found`, [
      id,
    ]);
    return row.found;
  }

  async connectorSpaceObjectExists(connectedSystemId: number, id: string): Promise<boolean> {
    const [row] = await this.db.query<Array<{ found: boolean }>>(
      `SELECT EXISTS (SELECT 1 FROM connected_system_object WHERE id = $1 AND connected_system_id = $2) AS found`,
      [id, connectedSystemId],
    );
    return row.found;
  }

  /**
   * Records one metaverse object change made outside a run (an object deleted through the API), on the
   * caller's transaction; the engine writes its records in bulk through ChangeRecordStore.
   */
  async insertMvoChange(origin: ChangeOrigin, row: MvoChangeRow, at = new Date()): Promise<string> {
    const id = uuidV7(at.getTime());
    const values = [
      id,
      at,
      row.metaverseObjectId,
      row.objectTypeId,
      row.displayName,
      row.changeType,
      row.attributeChanges === null ? null : JSON.stringify(row.attributeChanges),
      row.connectedSystemId,
      row.connectedSystemObjectId,
      origin.activityId,
      origin.runProfileId,
      origin.initiatedByType,
      origin.initiatedById,
      origin.initiatedByName,
      row.objectTypeName ?? null,
    ];
    await this.db.query(
      `INSERT INTO metaverse_object_change (${MVO_CHANGE_COLUMNS.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
      values,
    );
    return id;
  }

  private async names(
    attributeTable: string,
    attributeIds: readonly number[],
    connectedSystemIds: readonly number[],
  ): Promise<ChangeRecordNames> {
    const names: ChangeRecordNames = { attributes: new Map(), connectedSystems: new Map() };
    if (!attributeIds.length && !connectedSystemIds.length) return names;
    const rows = await this.db.query<Array<{ kind: 'a' | 's'; id: number; name: string }>>(
      `SELECT 'a' AS kind, id, name FROM ${attributeTable} WHERE id = ANY($1::int[])
       UNION ALL
       SELECT 's' AS kind, id, name FROM connected_system WHERE id = ANY($2::int[])`,
      [attributeIds, connectedSystemIds],
    );
    for (const r of rows) (r.kind === 'a' ? names.attributes : names.connectedSystems).set(r.id, r.name);
    return names;
  }
}
