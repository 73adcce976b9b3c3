import {
  AttributeDataType,
  ConnectorSpaceObjectStatus,
  CsoChangeType,
  JoinType,
  MetaverseObjectOrigin,
  MetaverseObjectStatus,
  PendingExportChangeType,
  PendingExportStatus,
  StoredMetaverseAttributes,
} from '@meridian/domain';
import { uuidV7 } from '../bulk/uuid-v7';
import type { SqlSession } from './bulk-session';
import type { QueuedWrites } from './queued-writes';
import { NO_ID } from './keyset';
import { ChangeOrigin, CSO_CHANGE_COLUMNS } from './change-record.store';

/** A connector space object as synchronisation reads it. */
export interface SyncCso {
  id: string;
  connectedSystemId: number;
  objectTypeId: number;
  externalId: string | null;
  displayName: string | null;
  status: string;
  attributes: Record<string, unknown[]>;
  resolvedReferences: Record<string, Array<string | null>> | null;
  metaverseObjectId: string | null;
  joinType: string | null;
}

/** A metaverse object as synchronisation reads it. */
export interface SyncMvo {
  id: string;
  typeId: number;
  origin: string;
  displayName: string | null;
  attributes: StoredMetaverseAttributes;
  lastConnectorDisconnectedDate: Date | null;
  deletionEligibleDate: Date | null;
}

export interface PendingExportRow {
  id: string;
  connectedSystemObjectId: string;
  changeType: string;
  attributeChanges: Array<{ a: number; op: string; v: unknown[]; mv?: string[] }>;
  created: Date;
}

export interface MatchQuery {
  /** Position of the object in the page. */
  index: number;
  attributeId: number;
  typeId: number;
  value: string;
  caseSensitive: boolean;
}

export interface NewMetaverseObject {
  id: string;
  typeId: number;
  displayName: string | null;
  attributes: StoredMetaverseAttributes;
}

export interface MetaverseObjectUpdate {
  id: string;
  displayName: string | null;
  attributes: StoredMetaverseAttributes;
  lastConnectorDisconnectedDate: Date | null;
  deletionEligibleDate: Date | null;
}

export interface JoinUpdate {
  id: string;
  metaverseObjectId: string | null;
  joinType: string | null;
}

export interface NewConnectorObject {
  id: string;
  connectedSystemId: number;
  objectTypeId: number;
  displayName: string | null;
  metaverseObjectId: string;
}

export interface NewPendingExport {
  id: string;
  connectedSystemId: number;
  connectedSystemObjectId: string;
  changeType: string;
  attributeChanges: unknown[];
}

const CSO_COLUMNS = `id, connected_system_id AS "connectedSystemId", object_type_id AS "objectTypeId", external_id AS "externalId",
  display_name AS "displayName", status, attributes, resolved_references AS "resolvedReferences",
  metaverse_object_id AS "metaverseObjectId", join_type AS "joinType"`;

const MVO_COLUMNS = `id, type_id AS "typeId", origin, display_name AS "displayName", attributes,
  last_connector_disconnected_date AS "lastConnectorDisconnectedDate", deletion_eligible_date AS "deletionEligibleDate"`;

/** Lookup rows hold indexed attributes and every reference (so referrers of a deleted object are found by index). */
const LOOKUP_ATTRIBUTES = `(a.is_indexed OR a.type = '${AttributeDataType.Reference}')`;

/**
 * The SQL of a synchronisation run (DOMAIN.md §2.2): keyset pages of one system's connector space,
 * the page's metaverse neighbourhood, and set-based writes. Every method is one statement (or a
 * fixed few), whatever the number of objects.
 */
export class SyncStore {
  constructor(private readonly s: SqlSession) {}

  /** Sends writes queued with a store on QueuedWrites, in order, on this store's session. */
  async send(writes: QueuedWrites): Promise<void> {
    await writes.sendOn(this.s);
  }

  /** Objects a run will process: every one (full) or the changed ones (delta); provisioning placeholders excluded. */
  async countToProcess(systemId: number, deltaOnly: boolean): Promise<number> {
    const row = await this.s.row<{ n: number }>(
      `SELECT count(*)::int AS n FROM connected_system_object
        WHERE connected_system_id = $1 AND status <> '${ConnectorSpaceObjectStatus.PendingProvisioning}' ${deltaOnly ? 'AND sync_pending' : ''}`,
      [systemId],
    );
    return row?.n ?? 0;
  }

  /**
   * After a run cleared the change flags of a system's objects: reads the system's entries of the index of
   * changed objects (ix_cso_sync_pending) once, by an index scan, which marks the entries of the cleared
   * flags dead in the index as it meets them (an index scan tells the index when the row an entry leads to
   * is dead to every transaction; a bitmap scan does not). Otherwise they stay until a vacuum, and the next
   * delta synchronisation's count and pages visit every one of them, with a read of the row it leads to
   * (a million after a full synchronisation of a million). Returns the objects still flagged.
   */
  async sweepSyncFlags(systemId: number): Promise<number> {
    return this.s.transaction(async () => {
      await this.s.count('SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off');
      const row = await this.s.row<{ n: number }>(
        `SELECT count(*)::int AS n FROM connected_system_object WHERE connected_system_id = $1 AND sync_pending`,
        [systemId],
      );
      return row?.n ?? 0;
    }, 'page');
  }

  /** The next keyset page (ids after `after`), for a full run or only objects flagged as changed. */
  async page(systemId: number, after: string | null, limit: number, deltaOnly: boolean): Promise<SyncCso[]> {
    return this.s.rows<SyncCso>(
      `SELECT ${CSO_COLUMNS} FROM connected_system_object
        WHERE connected_system_id = $1 AND id > $2::uuid ${deltaOnly ? 'AND sync_pending' : ''}
          AND status <> '${ConnectorSpaceObjectStatus.PendingProvisioning}'
        ORDER BY id LIMIT $3`,
      [systemId, after ?? NO_ID, limit],
    );
  }

  /** Connector space object id → the metaverse object it is joined to, for the given ids. */
  async joinsOf(csoIds: readonly string[]): Promise<Map<string, string>> {
    if (!csoIds.length) return new Map();
    // By primary key only: a filter on metaverse_object_id could steer the planner to the partial index of
    // joined objects, which statistics taken before a run believe small while the run fills it.
    const rows = await this.s.rows<{ id: string; m: string | null }>(
      `SELECT id, metaverse_object_id AS m FROM connected_system_object WHERE id = ANY($1::uuid[])`,
      [csoIds],
    );
    return new Map(rows.filter((r) => r.m !== null).map((r) => [r.id, r.m!]));
  }

  /**
   * Metaverse objects matching each query (attribute, lower-cased value, type), one statement for the
   * whole page; a case-sensitive query also compares the exact stored value.
   */
  async match(queries: readonly MatchQuery[]): Promise<Array<{ index: number; objectId: string }>> {
    if (!queries.length) return [];
    return this.s.rows<{ index: number; objectId: string }>(
      `SELECT DISTINCT k.i AS index, m.id AS "objectId"
         FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::bool[]) AS k(i, attr, type_id, val, cs)
         JOIN metaverse_object_lookup l ON l.attribute_id = k.attr AND l.value_normalised = left(lower(k.val), 512)
         JOIN metaverse_object m ON m.id = l.object_id AND m.type_id = k.type_id
        WHERE NOT k.cs OR EXISTS (SELECT 1 FROM jsonb_array_elements(m.attributes -> k.attr::text) e WHERE e ->> 'v' = k.val)`,
      [
        queries.map((q) => q.index),
        queries.map((q) => q.attributeId),
        queries.map((q) => q.typeId),
        queries.map((q) => q.value),
        queries.map((q) => q.caseSensitive),
      ],
    );
  }

  async metaverseObjects(ids: readonly string[]): Promise<SyncMvo[]> {
    if (!ids.length) return [];
    return this.s.rows<SyncMvo>(`SELECT ${MVO_COLUMNS} FROM metaverse_object WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** Every connector space object joined to the given metaverse objects (all systems), except those already in hand. */
  async joinedObjects(metaverseObjectIds: readonly string[], except: readonly string[] = []): Promise<SyncCso[]> {
    if (!metaverseObjectIds.length) return [];
    return this.s.rows<SyncCso>(
      `SELECT ${CSO_COLUMNS} FROM connected_system_object WHERE metaverse_object_id = ANY($1::uuid[]) AND NOT (id = ANY($2::uuid[]))`,
      [metaverseObjectIds, except],
    );
  }

  /**
   * The unexported pending exports of the given objects. The objects' exports are found by their object
   * (ix_pending_export_cso) and only then filtered on their status (`OFFSET 0` keeps the filter out of the
   * scan): with the status in the scan, the planner may read the whole partial index of unexported
   * exports instead, which its statistics believe empty right after an export deleted them all, while
   * the index still holds an entry for every one until a vacuum (at 1,000,000: a second per page).
   */
  async pendingExports(csoIds: readonly string[]): Promise<PendingExportRow[]> {
    if (!csoIds.length) return [];
    return this.s.rows<PendingExportRow>(
      `SELECT id, "connectedSystemObjectId", "changeType", "attributeChanges", created
         FROM (SELECT id, connected_system_object_id AS "connectedSystemObjectId", change_type AS "changeType",
                      attribute_changes AS "attributeChanges", created, status
                 FROM pending_export WHERE connected_system_object_id = ANY($1::uuid[]) OFFSET 0) p
        WHERE status = '${PendingExportStatus.Pending}'`,
      [csoIds],
    );
  }

  /** Whether a system has unjoined objects of a type (adoption candidates before provisioning). */
  async hasUnjoined(systemId: number, objectTypeId: number): Promise<boolean> {
    return !!(await this.s.row(
      `SELECT 1 FROM connected_system_object WHERE connected_system_id = $1 AND object_type_id = $2 AND metaverse_object_id IS NULL
          AND status = '${ConnectorSpaceObjectStatus.Normal}' LIMIT 1`,
      [systemId, objectTypeId],
    ));
  }

  /**
   * Unjoined objects of a system and type whose attribute holds one of the values (case-insensitive),
   * for adopting pre-existing accounts. Reads only unjoined objects (ix_cso_unjoined).
   */
  async findUnjoined(
    systemId: number,
    objectTypeId: number,
    attributeId: number,
    values: readonly string[],
  ): Promise<Array<SyncCso & { matched: string }>> {
    if (!values.length) return [];
    return this.s.rows<SyncCso & { matched: string }>(
      `SELECT ${CSO_COLUMNS}, lower(e #>> '{}') AS matched
         FROM connected_system_object c CROSS JOIN LATERAL jsonb_array_elements(c.attributes -> $3::text) e
        WHERE c.connected_system_id = $1 AND c.object_type_id = $2 AND c.metaverse_object_id IS NULL AND c.status = '${ConnectorSpaceObjectStatus.Normal}'
          AND lower(e #>> '{}') = ANY($4::text[])`,
      [systemId, objectTypeId, String(attributeId), values.map((v) => v.toLowerCase())],
    );
  }

  /** Metaverse objects whose reference attributes point at any of the given objects. */
  async referrers(targetIds: readonly string[]): Promise<string[]> {
    if (!targetIds.length) return [];
    const rows = await this.s.rows<{ id: string }>(
      `SELECT DISTINCT l.object_id AS id FROM metaverse_object_lookup l JOIN metaverse_attribute a ON a.id = l.attribute_id AND a.type = '${AttributeDataType.Reference}'
        WHERE l.value_normalised = ANY($1::text[])`,
      [targetIds.map((t) => t.toLowerCase())],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Whether any lookup row of `objectIds` is one that `match` would find for one of `keys` (attribute,
   * value; types and case aside, so it may answer yes where `match` would not) or `referrers` for one of
   * `targetIds`. A page decided on reads made before those rows were written must be decided again.
   */
  async findsLookups(
    objectIds: readonly string[],
    keys: ReadonlyArray<{ attributeId: number; value: string }>,
    targetIds: readonly string[],
  ): Promise<boolean> {
    if (!objectIds.length || (!keys.length && !targetIds.length)) return false;
    const row = await this.s.row<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM unnest($2::int[], $3::text[]) AS k(attr, val)
                        JOIN metaverse_object_lookup l ON l.attribute_id = k.attr AND l.value_normalised = left(lower(k.val), 512)
                       WHERE l.object_id = ANY($1::uuid[]))
           OR EXISTS (SELECT 1 FROM metaverse_object_lookup l JOIN metaverse_attribute a ON a.id = l.attribute_id AND a.type = '${AttributeDataType.Reference}'
                       WHERE l.value_normalised = ANY($4::text[]) AND l.object_id = ANY($1::uuid[])) AS found`,
      [objectIds, keys.map((k) => k.attributeId), keys.map((k) => k.value), targetIds.map((t) => t.toLowerCase())],
    );
    return !!row?.found;
  }

  /** Serialises with a change of is_indexed and its backfill (metaverse-lookups). */
  async lockLookupSchema(): Promise<void> {
    await this.s.count(`SELECT pg_advisory_xact_lock_shared(hashtext('meridian:metaverse-lookup-schema'))`);
  }

  async insertMetaverseObjects(objects: readonly NewMetaverseObject[]): Promise<void> {
    if (!objects.length) return;
    await this.s.copy(
      'metaverse_object',
      ['id', 'type_id', 'origin', 'status', 'display_name', 'attributes', 'last_updated'],
      objects.map((o) => [
        o.id,
        o.typeId,
        MetaverseObjectOrigin.Projected,
        MetaverseObjectStatus.Normal,
        o.displayName,
        o.attributes,
        new Date(),
      ]),
    );
  }

  async updateMetaverseObjects(objects: readonly MetaverseObjectUpdate[]): Promise<void> {
    if (!objects.length) return;
    await this.s.stage('meridian_mvo_changes', 'id uuid, display_name text, attributes jsonb, ldd timestamptz, ede timestamptz');
    await this.s.copy(
      'meridian_mvo_changes',
      ['id', 'display_name', 'attributes', 'ldd', 'ede'],
      objects.map((o) => [o.id, o.displayName, o.attributes, o.lastConnectorDisconnectedDate, o.deletionEligibleDate]),
    );
    await this.s.count(
      `UPDATE metaverse_object m SET display_name = c.display_name, attributes = c.attributes, last_connector_disconnected_date = c.ldd,
              deletion_eligible_date = c.ede, last_updated = now()
         FROM meridian_mvo_changes c WHERE m.id = c.id`,
    );
  }

  /** Attributes that have lookup rows (indexed ones and every reference); read under the lookup-schema lock. */
  async lookupAttributeIds(): Promise<Set<number>> {
    const rows = await this.s.rows<{ id: number }>(`SELECT a.id FROM metaverse_attribute a WHERE ${LOOKUP_ATTRIBUTES}`);
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Replaces the lookup rows of objects: `replace` lists objects whose rows are rewritten (new objects
   * have none to remove), `rows` the raw values to add. Values are normalised in SQL, as every reader
   * does (left(lower(v), 512)), so writer and reader can never disagree.
   */
  async writeLookups(replace: readonly string[], rows: ReadonlyArray<[number, string, string]>): Promise<void> {
    if (replace.length) await this.s.count(`DELETE FROM metaverse_object_lookup WHERE object_id = ANY($1::uuid[])`, [replace]);
    if (!rows.length) return;
    // One statement, the page's rows as three array parameters (no staging table to create, empty and fill).
    await this.s.count(
      `INSERT INTO metaverse_object_lookup (attribute_id, value_normalised, object_id)
       SELECT DISTINCT attribute_id, left(lower(value), 512), object_id FROM unnest($1::int[], $2::text[], $3::uuid[]) AS t(attribute_id, value, object_id)`,
      [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
    );
  }

  async deleteMetaverseObjects(ids: readonly string[]): Promise<number> {
    if (!ids.length) return 0;
    return this.s.count(`DELETE FROM metaverse_object WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /**
   * In one statement: joins made or broken (metaverse object id null = disconnected), and objects marked
   * synchronised (delta synchronisation will not look at them again until an import changes them).
   */
  async updateJoins(joins: readonly JoinUpdate[], synchronised: readonly string[] = []): Promise<void> {
    if (!joins.length && !synchronised.length) return;
    const joined = new Set(joins.map((j) => j.id));
    const rows = [
      ...joins.map((j) => [j.id, true, j.metaverseObjectId, j.joinType]),
      ...synchronised.filter((id) => !joined.has(id)).map((id) => [id, false, null, null]),
    ];
    const done = new Set(synchronised);
    // One statement, the rows as array parameters (no staging table to create, empty and fill).
    await this.s.count(
      `UPDATE connected_system_object c
          SET metaverse_object_id = CASE WHEN j.set_join THEN j.metaverse_object_id ELSE c.metaverse_object_id END,
              join_type = CASE WHEN j.set_join THEN j.join_type ELSE c.join_type END,
              last_updated = CASE WHEN j.set_join THEN now() ELSE c.last_updated END,
              sync_pending = c.sync_pending AND NOT j.synced
         FROM unnest($1::uuid[], $2::boolean[], $3::uuid[], $4::text[], $5::boolean[]) AS j(id, set_join, metaverse_object_id, join_type, synced)
        WHERE c.id = j.id AND (j.set_join OR (j.synced AND c.sync_pending))`,
      [
        rows.map((r) => r[0]),
        rows.map((r) => r[1]),
        rows.map((r) => r[2]),
        rows.map((r) => r[3]),
        rows.map((r) => done.has(r[0] as string)),
      ],
    );
  }

  /**
   * Removes objects from the connector space. With `record`, the objects that existed in their connected
   * system (not the never-exported provisioning placeholders) get a `Deleted` change record in the same
   * statement (a writable CTE), with the names the deleted-objects list shows after the rows are gone.
   */
  async deleteConnectorObjects(ids: readonly string[], record: { origin: ChangeOrigin; at: Date } | null = null): Promise<void> {
    if (!ids.length) return;
    if (!record) {
      await this.s.count(`DELETE FROM connected_system_object WHERE id = ANY($1::uuid[])`, [ids]);
      return;
    }
    // Change record ids are made here (UUID v7 of the change time), one per object, paired by position.
    const ms = record.at.getTime();
    const { origin } = record;
    await this.s.count(
      `WITH gone AS (
         DELETE FROM connected_system_object c USING unnest($1::uuid[], $2::uuid[]) AS d(cso_id, change_id)
          WHERE c.id = d.cso_id
         RETURNING d.change_id, c.id, c.connected_system_id, c.object_type_id, c.external_id, c.display_name, c.status),
       recorded AS (
         INSERT INTO connected_system_object_change (${CSO_CHANGE_COLUMNS.join(', ')})
         SELECT g.change_id, $3, g.connected_system_id, g.id, g.object_type_id, g.external_id, g.display_name, '${CsoChangeType.Deleted}', NULL,
                $4, $5, $6, $7, $8, t.name, s.name
           FROM gone g
           JOIN connected_system s ON s.id = g.connected_system_id
           LEFT JOIN connected_system_object_type t ON t.id = g.object_type_id
          WHERE g.status <> '${ConnectorSpaceObjectStatus.PendingProvisioning}')
       SELECT count(*)::int AS n FROM gone`,
      [
        ids,
        ids.map(() => uuidV7(ms)),
        record.at,
        origin.activityId,
        origin.runProfileId,
        origin.initiatedByType,
        origin.initiatedById,
        origin.initiatedByName,
      ],
    );
  }

  /** Placeholders of objects to provision: PendingProvisioning, joined, no external ID yet. */
  async insertProvisioned(objects: readonly NewConnectorObject[]): Promise<void> {
    if (!objects.length) return;
    await this.s.copy(
      'connected_system_object',
      ['id', 'connected_system_id', 'object_type_id', 'display_name', 'status', 'metaverse_object_id', 'join_type', 'sync_pending'],
      objects.map((o) => [
        o.id,
        o.connectedSystemId,
        o.objectTypeId,
        o.displayName,
        ConnectorSpaceObjectStatus.PendingProvisioning,
        o.metaverseObjectId,
        JoinType.Provisioned,
        false,
      ]),
    );
  }

  async insertPendingExports(exports: readonly NewPendingExport[]): Promise<void> {
    if (!exports.length) return;
    await this.s.copy(
      'pending_export',
      ['id', 'connected_system_id', 'connected_system_object_id', 'change_type', 'status', 'attribute_changes'],
      exports.map((e) => [
        e.id,
        e.connectedSystemId,
        e.connectedSystemObjectId,
        e.changeType,
        PendingExportStatus.Pending,
        e.attributeChanges,
      ]),
    );
  }

  /**
   * Rewrites the changes of unexported pending exports (merging, never stacking). An export that left
   * `Pending` meanwhile (an export run of its system sent it) is not touched: the merged changes become a
   * new pending `Update` of the object instead, so nothing staged is lost.
   */
  async updatePendingExports(
    exports: ReadonlyArray<{ id: string; connectedSystemId: number; connectedSystemObjectId: string; attributeChanges: unknown[] }>,
  ): Promise<void> {
    if (!exports.length) return;
    await this.s.stage('meridian_pe_changes', 'id uuid, connected_system_id int, cso_id uuid, attribute_changes jsonb');
    await this.s.copy(
      'meridian_pe_changes',
      ['id', 'connected_system_id', 'cso_id', 'attribute_changes'],
      exports.map((e) => [e.id, e.connectedSystemId, e.connectedSystemObjectId, e.attributeChanges]),
    );
    await this.s.count(
      `WITH merged AS (
         UPDATE pending_export p SET attribute_changes = c.attribute_changes, last_updated = now()
           FROM meridian_pe_changes c WHERE p.id = c.id AND p.status = '${PendingExportStatus.Pending}'
         RETURNING p.id)
       INSERT INTO pending_export (id, connected_system_id, connected_system_object_id, change_type, status, attribute_changes)
       SELECT gen_random_uuid(), c.connected_system_id, c.cso_id, '${PendingExportChangeType.Update}', '${PendingExportStatus.Pending}', c.attribute_changes
         FROM meridian_pe_changes c
        WHERE NOT EXISTS (SELECT 1 FROM merged m WHERE m.id = c.id)
          AND EXISTS (SELECT 1 FROM connected_system_object o WHERE o.id = c.cso_id AND o.external_id IS NOT NULL)
       ON CONFLICT (connected_system_object_id) WHERE status = '${PendingExportStatus.Pending}' DO NOTHING`,
    );
  }

  async deletePendingExports(ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    await this.s.count(`DELETE FROM pending_export WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** A completed full synchronisation applied the current configuration to every object. */
  async clearFullSyncRequired(systemId: number): Promise<void> {
    await this.s.count(`UPDATE connected_system SET full_sync_required = false WHERE id = $1 AND full_sync_required`, [systemId]);
  }

  /**
   * Expired pending deletions (grace period passed), oldest first: a walk of the partial index
   * ix_metaverse_object_deletion_eligible in eligible-date order that stops after `limit`, whatever the
   * size of the metaverse and however old its statistics.
   */
  async expiredPendingDeletions(limit: number): Promise<string[]> {
    const rows = await this.s.rows<{ id: string }>(
      `SELECT id FROM metaverse_object WHERE last_connector_disconnected_date IS NOT NULL AND deletion_eligible_date <= now() AND origin <> '${MetaverseObjectOrigin.Internal}'
        ORDER BY deletion_eligible_date LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }
}
