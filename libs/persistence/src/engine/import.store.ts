import type { ClientBase } from 'pg';
import { ConnectorSpaceObjectStatus, CsoChangeType, PendingExportStatus, SyncOutcome } from '@meridian/domain';
import {
  CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS,
  CONNECTOR_SPACE_PREVIOUS_STATE_DDL,
  ConnectorSpaceChange,
  connectorSpaceExistingColumns,
  connectorSpaceLookupSql,
  ConnectorSpaceBatchPlan,
  ExistingConnectorSpaceObject,
  existingConnectorSpaceObject,
  writeConnectorSpacePlan,
} from '../bulk/connector-space';
import type { StoredAttributeChange } from '../entities/engine.entity';
import type { BulkSession } from './bulk-session';
import { NO_ID } from './keyset';
import { changeOriginParams, insertCsoChangesSql, sqlLiteral } from './change-record.sql';
import type { ChangeOrigin } from './change-record.store';

/**
 * External IDs met by the run: one row per (object type, external ID). `outcome` is `Added` for a key
 * whose object the run inserted and `Deleted` for one it obsoleted; an object it updated is recognised
 * by its previous state in PREVIOUS. `duplicate` marks keys rejected as duplicates.
 */
const SEEN = 'meridian_import_seen';
/** The state of every object the run updated or obsoleted, as it was before (to undo the write of a duplicate). */
const PREVIOUS = 'meridian_import_previous';
/** Objects the run obsoleted, or added and then removed as duplicates: references to them are resolved again. */
const GONE = 'meridian_import_gone';
/** Objects whose references the run resolves. */
const RESOLVE = 'meridian_import_resolve';

const PREVIOUS_COLUMNS = CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS;

/**
 * The objects a full import must meet or obsolete (alias c), of the types in the int[] parameter `types`:
 * `Normal` ones with an external ID. One predicate for the count before the import and the search after
 * it, so the two agree.
 */
const obsoletionCandidates = (types: string) =>
  `c.object_type_id = ANY(${types}::int[]) AND c.status = '${ConnectorSpaceObjectStatus.Normal}' AND c.external_id IS NOT NULL`;

/** Objects whose references wait for resolution: the predicate of ix_cso_references_pending. */
const REFERENCES_PENDING = `c.resolved_references IS NULL OR jsonb_path_exists(c.resolved_references, '$.*[*] ? (@ == null)')`;

/** What the run wrote for an external ID (a SyncOutcome), or null when it wrote nothing. */
export type ImportOutcome = SyncOutcome.Added | SyncOutcome.Updated | SyncOutcome.Deleted;

export interface ImportSeenKey {
  objectTypeId: number;
  externalId: string;
}

export interface ImportSeenRecord extends ImportSeenKey {
  csoId: string | null;
  outcome: ImportOutcome | null;
  duplicate: boolean;
}

/** A key of a page as the run claims it: an object to write or to delete, or a key repeated within the page. */
export interface ImportClaimKey extends ImportSeenKey {
  kind: 'Upsert' | 'Delete' | 'Duplicate';
  /**
   * The content hash (hex) an `Upsert` is stored with, when known before the claim — its fingerprint hash,
   * or the hash of its values when it has no fingerprint: the stored values come along when the stored hash
   * differs, so that the same values under another hash are recognised and only rehashed.
   */
  hash?: string | null;
}

/** What claiming a page's keys found (positions refer to the keys given). */
export interface ImportClaim {
  /** What the connector space holds for each `Upsert` key (undefined: nothing, the object is new). */
  existing: Array<ExistingConnectorSpaceObject | undefined>;
  /** Positions of the keys an earlier page of the run already met. */
  repeated: number[];
}

export interface ImportObsoleted {
  id: string;
  objectTypeId: number;
  externalId: string;
  displayName: string | null;
}

export interface ReferenceResolutionBatch {
  /** Keyset cursor: the last candidate of the batch, null when there were none left. */
  last: string | null;
  /** Objects whose resolved references changed. */
  changed: number;
  unresolved: UnresolvedReferences[];
}

export interface UnresolvedReferences {
  id: string;
  externalId: string | null;
  displayName: string | null;
  objectTypeId: number;
  /** Number of values that resolved to no object (or to several). */
  count: number;
  /** The first few, as attribute id and raw value. */
  examples: Array<{ attributeId: number; value: string }>;
  ambiguous: boolean;
}

/** An `Exported` pending export with the values its object holds now (only the attributes it touched). */
export interface ExportedPendingExport {
  id: string;
  csoId: string;
  changeType: string;
  changes: StoredAttributeChange[];
  confirmationAttempts: number;
  externalId: string | null;
  displayName: string | null;
  objectTypeId: number;
  csoStatus: string;
  values: Record<string, unknown[]>;
  resolvedReferences: Record<string, Array<string | null>>;
  /** The object's unexported (`Pending`) export, if any: unconfirmed changes merge into it. */
  openId: string | null;
  openChanges: StoredAttributeChange[] | null;
}

export interface PendingExportConfirmationUpdate {
  id: string;
  /** Null keeps the status. */
  status: PendingExportStatus | null;
  changes: StoredAttributeChange[];
  /** Null keeps the count. */
  confirmationAttempts: number | null;
  lastError: string | null;
}

/**
 * The SQL of an import run (DOMAIN.md §2.1, docs/engine.md "Import"), on the run's session. Every
 * method is a constant number of statements whatever the number of objects it handles; what the run
 * must remember across pages (external IDs seen, previous states, objects obsoleted) lives in session
 * temporary tables, not in memory.
 */
export class ImportStore {
  /** The session's client, counting statements (the connector-space writer issues its own). */
  private readonly client: ClientBase;

  /**
   * `changeOrigin`: the run records connector space object changes (spec 2.13) with this origin: the
   * `Updated` and `Obsoleted` records are written by the statements that make the changes (a CTE each),
   * and undoing a duplicate's write removes its records. Null: the run records nothing.
   */
  constructor(
    private readonly s: BulkSession,
    private readonly systemId: number,
    private readonly changeOrigin: ChangeOrigin | null = null,
  ) {
    const real = s.client;
    this.client = {
      query: (...args: unknown[]) => {
        s.statements++;
        return (real.query as (...a: unknown[]) => unknown).apply(real, args);
      },
    } as unknown as ClientBase;
  }

  /** Creates (once per connection) and empties the run's temporary tables. */
  async begin(): Promise<void> {
    await this.s.stage(
      SEEN,
      'object_type_id int NOT NULL, external_id text NOT NULL, outcome varchar(10), ' +
        'duplicate boolean NOT NULL DEFAULT false, PRIMARY KEY (object_type_id, external_id)',
    );
    await this.s.stage(PREVIOUS, CONNECTOR_SPACE_PREVIOUS_STATE_DDL);
    await this.s.stage(GONE, 'id uuid PRIMARY KEY');
    await this.s.stage(RESOLVE, 'id uuid PRIMARY KEY');
  }

  /** Empties the temporary tables, so a pooled connection does not keep a large run's keys. */
  async end(): Promise<void> {
    await this.s.count(`TRUNCATE ${SEEN}, ${PREVIOUS}, ${GONE}, ${RESOLVE}`);
  }

  /**
   * Claims the keys of a page for the run and looks up its objects, in one statement: every key not met
   * before is remembered (an `Upsert` key the connector space does not hold as `Added`: the page inserts
   * its object), the keys an earlier page met are reported (their earlier write is the caller's to undo),
   * and for every `Upsert` key the object the connector space holds comes along. The page's keys are
   * claimed before its objects are written. The table is the run's own: a claim need not be atomic with
   * the page's writes (a run whose writes fail ends there, and the next run starts with an empty table).
   */
  async claim(keys: readonly ImportClaimKey[]): Promise<ImportClaim> {
    const claim: ImportClaim = { existing: new Array(keys.length), repeated: [] };
    if (!keys.length) return claim;
    const rows = await this.s.rows<{
      ord: number;
      id: string | null;
      content_hash: string | null;
      status: string;
      stored: [string | null, string | null, Record<string, unknown[]>] | null;
      repeated: boolean;
    }>(
      `WITH k AS (
         SELECT * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS k(object_type_id, external_id, kind, hash, ord)),
       found AS (
         SELECT k.ord, k.object_type_id, k.external_id, k.kind, c.*
           FROM k LEFT JOIN LATERAL (
             SELECT ${connectorSpaceExistingColumns('o', 'k.hash')}
               FROM connected_system_object o
              WHERE k.kind = 'Upsert' AND o.connected_system_id = $1 AND o.object_type_id = k.object_type_id AND o.external_id = k.external_id
              LIMIT 1) c ON true),
       claimed AS (
         INSERT INTO ${SEEN} (object_type_id, external_id, outcome, duplicate)
         SELECT object_type_id, external_id, CASE WHEN kind = 'Upsert' AND id IS NULL THEN '${SyncOutcome.Added}' END, kind = 'Duplicate' FROM found
         ON CONFLICT (object_type_id, external_id) DO NOTHING
         RETURNING object_type_id, external_id)
       SELECT f.ord::int AS ord, f.id, f.content_hash, f.status, f.stored, cl.external_id IS NULL AS repeated
         FROM found f LEFT JOIN claimed cl ON cl.object_type_id = f.object_type_id AND cl.external_id = f.external_id
        WHERE f.id IS NOT NULL OR cl.external_id IS NULL`,
      [
        this.systemId,
        keys.map((k) => k.objectTypeId),
        keys.map((k) => k.externalId),
        keys.map((k) => k.kind),
        keys.map((k) => k.hash ?? null),
      ],
    );
    for (const r of rows) {
      if (r.repeated) claim.repeated.push(r.ord - 1);
      if (r.id !== null) claim.existing[r.ord - 1] = existingConnectorSpaceObject({ ...r, id: r.id });
    }
    return claim;
  }

  /**
   * What the run recorded for keys an earlier page met: whether they are already duplicates, and what the
   * run wrote for them (the object it added, updated or obsoleted), so the write can be undone.
   */
  async earlier(keys: readonly ImportSeenKey[]): Promise<ImportSeenRecord[]> {
    if (!keys.length) return [];
    return this.s.rows<ImportSeenRecord>(
      `SELECT s.object_type_id AS "objectTypeId", s.external_id AS "externalId", s.duplicate, w.outcome, CASE WHEN w.outcome IS NOT NULL THEN c.id END AS "csoId"
         FROM unnest($2::int[], $3::text[]) AS k(object_type_id, external_id)
         JOIN ${SEEN} s ON s.object_type_id = k.object_type_id AND s.external_id = k.external_id
         LEFT JOIN LATERAL (
           SELECT o.id FROM connected_system_object o
            WHERE o.connected_system_id = $1 AND o.object_type_id = k.object_type_id AND o.external_id = k.external_id LIMIT 1) c ON true
         CROSS JOIN LATERAL (
           SELECT CASE WHEN s.duplicate THEN NULL WHEN s.outcome IS NOT NULL THEN s.outcome
                       WHEN EXISTS (SELECT 1 FROM ${PREVIOUS} p WHERE p.id = c.id) THEN '${SyncOutcome.Updated}' END AS outcome) w`,
      [this.systemId, keys.map((k) => k.objectTypeId), keys.map((k) => k.externalId)],
    );
  }

  /**
   * Marks keys as duplicates and undoes what the run wrote for them: an object it added is removed, an
   * object it updated or obsoleted gets its previous state back. The object is as it was before the run.
   */
  async rejectDuplicates(records: readonly ImportSeenRecord[]): Promise<void> {
    if (!records.length) return;
    await this.s.count(
      `UPDATE ${SEEN} s SET duplicate = true, outcome = NULL
         FROM unnest($1::int[], $2::text[]) AS k(object_type_id, external_id)
        WHERE s.object_type_id = k.object_type_id AND s.external_id = k.external_id`,
      [records.map((r) => r.objectTypeId), records.map((r) => r.externalId)],
    );
    const restored = records
      .filter((r) => r.csoId && (r.outcome === SyncOutcome.Updated || r.outcome === SyncOutcome.Deleted))
      .map((r) => r.csoId);
    const added = records.filter((r) => r.csoId && r.outcome === SyncOutcome.Added).map((r) => r.csoId);
    if (restored.length) {
      await this.s.count(
        `WITH back AS (
           UPDATE connected_system_object c
              SET secondary_external_id = p.secondary_external_id, display_name = p.display_name, attributes = p.attributes,
                  content_hash = p.content_hash, status = p.status, sync_pending = p.sync_pending, resolved_references = p.resolved_references,
                  last_updated = p.last_updated
             FROM ${PREVIOUS} p
            WHERE p.id = ANY($1::uuid[]) AND c.id = p.id
           RETURNING c.id)
         DELETE FROM ${GONE} g USING back WHERE g.id = back.id`,
        [restored],
      );
    }
    if (added.length) {
      // Objects of later pages may already refer to one removed here (references resolved as they were
      // written): noted as gone, so that they are resolved again after the import.
      await this.s.count(
        `WITH removed AS (DELETE FROM connected_system_object WHERE connected_system_id = $1 AND id = ANY($2::uuid[]) RETURNING id)
         INSERT INTO ${GONE} (id) SELECT id FROM removed ON CONFLICT (id) DO NOTHING`,
        [this.systemId, added],
      );
    }
  }

  /**
   * Removes the run's change items (Add, Update, Delete) of objects whose write was undone, and, when the
   * run records changes, the change records that write made (same statement); returns how many of the
   * items carried an error type (value errors of the undone write), which no longer count.
   */
  async removeChangeItems(activityId: string, csoIds: readonly string[], changeTypes: readonly string[]): Promise<number> {
    if (!csoIds.length) return 0;
    const removed = await this.s.rows<{ error_type: string | null }>(
      `${
        this.changeOrigin
          ? `WITH records AS (
               DELETE FROM connected_system_object_change
                WHERE connected_system_id = $4 AND connected_system_object_id = ANY($2::uuid[]) AND activity_id = $1)
             `
          : ''
      }DELETE FROM activity_execution_item WHERE activity_id = $1 AND connected_system_object_id = ANY($2::uuid[]) AND object_change_type = ANY($3::text[])
       RETURNING error_type`,
      [activityId, csoIds, changeTypes, ...(this.changeOrigin ? [this.systemId] : [])],
    );
    return removed.filter((r) => r.error_type !== null).length;
  }

  /**
   * Writes objects through the connector-space writer (ADR 0003) as planned (planConnectorSpaceBatch,
   * from what claim found): new ones inserted, changed ones updated with their previous state kept,
   * unchanged ones not written; `plan.statements` statements. Returns what it wrote.
   */
  async writeObjects(plan: ConnectorSpaceBatchPlan): Promise<ConnectorSpaceChange[]> {
    if (!plan.statements) return [];
    return (
      await writeConnectorSpacePlan(this.client, plan, { previousStateTable: PREVIOUS, changeOrigin: this.changeOrigin ?? undefined })
    ).changes;
  }

  /** A delta import's deletes: the objects with these keys become `Obsolete` (those that are `Normal`). */
  async obsoleteByExternalId(keys: readonly ImportSeenKey[]): Promise<ImportObsoleted[]> {
    if (!keys.length) return [];
    return this.s.rows<ImportObsoleted>(
      `WITH gone AS (
         UPDATE connected_system_object c
            SET status = '${ConnectorSpaceObjectStatus.Obsolete}', sync_pending = true, last_updated = now()
           FROM unnest($2::int[], $3::text[]) AS k(object_type_id, external_id)
           JOIN connected_system_object p
             ON p.connected_system_id = $1 AND p.object_type_id = k.object_type_id AND p.external_id = k.external_id AND p.external_id IS NOT NULL
          WHERE c.id = p.id AND p.status = '${ConnectorSpaceObjectStatus.Normal}'
         RETURNING p.object_type_id, p.external_id, ${PREVIOUS_COLUMNS.split(', ')
           .map((c) => `p.${c}`)
           .join(', ')}),
       kept AS (
         INSERT INTO ${PREVIOUS} (${PREVIOUS_COLUMNS}) SELECT ${PREVIOUS_COLUMNS} FROM gone ON CONFLICT (id) DO NOTHING),
       noted AS (INSERT INTO ${GONE} (id) SELECT id FROM gone ON CONFLICT (id) DO NOTHING),
       marked AS (
         UPDATE ${SEEN} s SET outcome = '${SyncOutcome.Deleted}' FROM gone g WHERE s.object_type_id = g.object_type_id AND s.external_id = g.external_id)${this.obsoletedRecords(4)}
       SELECT id, object_type_id AS "objectTypeId", external_id AS "externalId", display_name AS "displayName" FROM gone`,
      [this.systemId, keys.map((k) => k.objectTypeId), keys.map((k) => k.externalId), ...this.originParams()],
    );
  }

  /**
   * Full import: the next `limit` objects (in id order after `after`) of these object types that the run
   * did not meet become `Obsolete`. Objects created by synchronisation (`PendingProvisioning`) and
   * objects already obsolete are left alone. Returns the objects it obsoleted (fewer than `limit`: done).
   */
  async obsoleteUnseen(
    objectTypeIds: readonly number[],
    after: string | null,
    limit: number,
  ): Promise<{ obsoleted: ImportObsoleted[]; last: string | null }> {
    const rows = await this.s.rows<ImportObsoleted & { last: string | null }>(
      `WITH doomed AS (
         SELECT c.id FROM connected_system_object c
          WHERE c.connected_system_id = $1 AND c.id > $2::uuid AND ${obsoletionCandidates('$3')}
            AND NOT EXISTS (SELECT 1 FROM ${SEEN} s WHERE s.object_type_id = c.object_type_id AND s.external_id = c.external_id)
          ORDER BY c.id LIMIT $4),
       gone AS (
         UPDATE connected_system_object c SET status = '${ConnectorSpaceObjectStatus.Obsolete}', sync_pending = true, last_updated = now()
           FROM doomed d WHERE c.id = d.id
         RETURNING c.id, c.object_type_id, c.external_id, c.display_name),
       noted AS (INSERT INTO ${GONE} (id) SELECT id FROM gone ON CONFLICT (id) DO NOTHING)${this.obsoletedRecords(5)}
       SELECT g.id, g.object_type_id AS "objectTypeId", g.external_id AS "externalId", g.display_name AS "displayName", m.last
         FROM (SELECT max(id::text) AS last FROM doomed) m LEFT JOIN gone g ON true`,
      [this.systemId, after ?? NO_ID, objectTypeIds, limit, ...this.originParams()],
    );
    return { obsoleted: rows.filter((r) => r.id !== null).map(({ last: _last, ...o }) => o), last: rows[0]?.last ?? null };
  }

  /** The origin parameters of the change records a statement writes (none when the run records no changes). */
  private originParams(): unknown[] {
    return this.changeOrigin ? changeOriginParams(this.changeOrigin) : [];
  }

  /**
   * A CTE (with its leading comma) recording an `Obsoleted` change for every row of `gone` (id,
   * object_type_id, external_id, display_name), when the run records changes; the origin parameters start
   * at `$origin`.
   */
  private obsoletedRecords(origin: number): string {
    if (!this.changeOrigin) return '';
    return `,
       recorded AS (${insertCsoChangesSql(
         'gone',
         {
           connectedSystemId: '$1::int',
           objectId: 'id',
           objectTypeId: 'object_type_id',
           externalId: 'external_id',
           displayName: 'display_name',
           changeType: sqlLiteral(CsoChangeType.Obsoleted),
         },
         origin,
       )})`;
  }

  /**
   * Collects the objects whose references the run resolves: those with reference values not resolved
   * yet (every object the run wrote: writing drops the resolution), those with a reference that did not
   * resolve last time, and those referring to an object the run obsoleted. One statement over the
   * system's objects of `referenceTypeIds` (the types with reference attributes).
   * Returns the number of objects collected.
   */
  async collectReferenceCandidates(referenceTypeIds: readonly number[]): Promise<number> {
    const anyGone = (await this.s.row(`SELECT 1 FROM ${GONE} LIMIT 1`)) !== null;
    // Objects written by the run (writing drops the resolution) and objects with an unresolved reference:
    // both are in ix_cso_references_pending, so an import that changed nothing reads only those.
    let n = await this.s.count(
      `INSERT INTO ${RESOLVE} (id)
       SELECT c.id FROM connected_system_object c
        WHERE c.connected_system_id = $1 AND (${REFERENCES_PENDING})
          AND c.object_type_id = ANY($2::int[]) AND c.status <> '${ConnectorSpaceObjectStatus.Obsolete}'
       ON CONFLICT (id) DO NOTHING`,
      [this.systemId, referenceTypeIds],
    );
    if (anyGone) {
      // Objects referring to one the run obsoleted (their reference no longer resolves). This reads the
      // system's resolved references; it runs only when the import obsoleted something.
      n += await this.s.count(
        `INSERT INTO ${RESOLVE} (id)
         SELECT c.id FROM connected_system_object c
          WHERE c.connected_system_id = $1 AND c.object_type_id = ANY($2::int[]) AND c.status <> '${ConnectorSpaceObjectStatus.Obsolete}'
            AND c.resolved_references IS NOT NULL AND c.resolved_references <> '{}'::jsonb
            AND EXISTS (SELECT 1 FROM jsonb_each(c.resolved_references) e CROSS JOIN jsonb_array_elements_text(e.value) AS r(target)
                          JOIN ${GONE} g ON g.id::text = r.target)
         ON CONFLICT (id) DO NOTHING`,
        [this.systemId, referenceTypeIds],
      );
    }
    return n;
  }

  /**
   * The objects of one type that hold the given external IDs and are not obsolete: external ID → id
   * (one statement, a point lookup per value on uq_cso_external_id). For references resolved as new
   * objects are written.
   */
  async idsByExternalId(objectTypeId: number, externalIds: readonly string[]): Promise<Map<string, string>> {
    if (!externalIds.length) return new Map();
    // One point lookup per value (connectorSpaceLookupSql): `external_id = ANY($3)` could not use the
    // partial index and would read the whole connector space, once per page.
    const rows = await this.s.rows<{ external_id: string; id: string; status: string }>(
      connectorSpaceLookupSql('external_id, id, status'),
      [this.systemId, objectTypeId, externalIds],
    );
    return new Map(rows.filter((r) => r.status !== ConnectorSpaceObjectStatus.Obsolete).map((r) => [r.external_id, r.id]));
  }

  /**
   * Resolves the references of the next `limit` candidates (after `after`): each raw value of a
   * reference attribute becomes the id of the object of this system whose external ID equals it, or
   * else whose secondary external ID equals it case-insensitively (ix_cso_secondary_external_id);
   * obsolete objects do not count, and a value matching several objects stays unresolved. Writes
   * `resolved_references` (and `sync_pending`) only where it changed; returns the unresolved values.
   *
   * `attributes`: reference attribute ids with their object type; `targetTypeIds`: types a reference can
   * point to (by external ID).
   */
  async resolveReferences(
    attributes: ReadonlyArray<{ attributeId: number; objectTypeId: number }>,
    targetTypeIds: readonly number[],
    after: string | null,
    limit: number,
  ): Promise<ReferenceResolutionBatch> {
    const rows = await this.s.rows<{
      last: string | null;
      changed: number;
      id: string | null;
      external_id: string | null;
      display_name: string | null;
      object_type_id: number;
      n: number;
      attribute_ids: number[];
      raw_values: string[];
      ambiguous: boolean;
    }>(
      `WITH batch AS (SELECT id FROM ${RESOLVE} WHERE id > $2::uuid ORDER BY id LIMIT $3),
       refs AS (
         SELECT c.id, a.attribute_id, v.ord, v.val
           FROM batch b JOIN connected_system_object c ON c.id = b.id
           JOIN unnest($4::int[], $5::int[]) AS a(attribute_id, object_type_id) ON a.object_type_id = c.object_type_id
           CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(c.attributes -> a.attribute_id::text, '[]'::jsonb)) WITH ORDINALITY AS v(val, ord)),
       matched AS (
         SELECT r.id, r.attribute_id, r.ord, r.val,
                CASE WHEN x.n = 1 THEN x.target WHEN x.n = 0 AND y.n = 1 THEN y.target END AS target,
                (x.n > 1 OR y.n > 1) AS ambiguous
           FROM refs r
           CROSS JOIN LATERAL (
             SELECT count(*) AS n, min(t.id::text) AS target FROM connected_system_object t
              WHERE t.connected_system_id = $1 AND t.object_type_id = ANY($6::int[]) AND t.external_id = r.val AND t.external_id IS NOT NULL
                AND t.status <> '${ConnectorSpaceObjectStatus.Obsolete}') x
           CROSS JOIN LATERAL (
             SELECT count(*) AS n, min(t.id::text) AS target FROM connected_system_object t
              WHERE x.n = 0 AND t.connected_system_id = $1 AND t.secondary_external_id IS NOT NULL AND lower(t.secondary_external_id) = lower(r.val)
                AND t.status <> '${ConnectorSpaceObjectStatus.Obsolete}') y),
       docs AS (
         SELECT b.id, d.doc FROM batch b LEFT JOIN (
           SELECT q.id, jsonb_object_agg(q.attribute_id::text, q.targets) AS doc FROM (
             SELECT m.id, m.attribute_id, jsonb_agg(to_jsonb(m.target) ORDER BY m.ord) AS targets
               FROM matched m GROUP BY m.id, m.attribute_id) q
            GROUP BY q.id) d ON d.id = b.id),
       changed AS (
         UPDATE connected_system_object c SET resolved_references = coalesce(d.doc, '{}'::jsonb),
                sync_pending = c.sync_pending OR c.resolved_references IS DISTINCT FROM d.doc AND d.doc IS NOT NULL, last_updated = now()
           FROM docs d WHERE c.id = d.id AND c.resolved_references IS DISTINCT FROM coalesce(d.doc, '{}'::jsonb)
         RETURNING c.id),
       unresolved AS (
         SELECT m.id, count(*)::int AS n, (array_agg(m.attribute_id ORDER BY m.attribute_id, m.ord))[1:5] AS attribute_ids,
                (array_agg(m.val ORDER BY m.attribute_id, m.ord))[1:5] AS raw_values, bool_or(m.ambiguous) AS ambiguous
           FROM matched m WHERE m.target IS NULL GROUP BY m.id)
       SELECT m.last, m.changed, u.id, c.external_id, c.display_name, c.object_type_id, u.n, u.attribute_ids, u.raw_values, u.ambiguous
         FROM (SELECT (SELECT max(id::text) FROM batch) AS last, (SELECT count(*) FROM changed)::int AS changed) m
         LEFT JOIN (unresolved u JOIN connected_system_object c ON c.id = u.id) ON true`,
      [this.systemId, after ?? NO_ID, limit, attributes.map((a) => a.attributeId), attributes.map((a) => a.objectTypeId), targetTypeIds],
    );
    const first = rows[0];
    return {
      last: first?.last ?? null,
      changed: first?.changed ?? 0,
      unresolved: rows
        .filter((r) => r.id !== null)
        .map((r) => ({
          id: r.id!,
          externalId: r.external_id,
          displayName: r.display_name,
          objectTypeId: r.object_type_id,
          count: r.n,
          ambiguous: r.ambiguous,
          examples: r.attribute_ids.map((attributeId, i) => ({ attributeId, value: r.raw_values[i] })),
        })),
    };
  }

  /** The next `limit` `Exported` pending exports of the system (keyset on id), with their object's current values. */
  async exportedPendingExports(after: string | null, limit: number): Promise<ExportedPendingExport[]> {
    return this.s.rows<ExportedPendingExport>(
      `SELECT pe.id, pe.connected_system_object_id AS "csoId", pe.change_type AS "changeType", pe.attribute_changes AS changes,
              pe.confirmation_attempts AS "confirmationAttempts", c.external_id AS "externalId", c.display_name AS "displayName",
              c.object_type_id AS "objectTypeId", c.status AS "csoStatus",
              coalesce((SELECT jsonb_object_agg(k.a, c.attributes -> k.a) FROM (SELECT DISTINCT x ->> 'a' AS a FROM jsonb_array_elements(pe.attribute_changes) x) k
                         WHERE c.attributes ? k.a), '{}'::jsonb) AS "values",
              coalesce((SELECT jsonb_object_agg(k.a, c.resolved_references -> k.a) FROM (SELECT DISTINCT x ->> 'a' AS a FROM jsonb_array_elements(pe.attribute_changes) x) k
                         WHERE c.resolved_references ? k.a), '{}'::jsonb) AS "resolvedReferences",
              o.id AS "openId", o.attribute_changes AS "openChanges"
         FROM pending_export pe
         JOIN connected_system_object c ON c.id = pe.connected_system_object_id
         LEFT JOIN pending_export o ON o.connected_system_object_id = pe.connected_system_object_id AND o.status = '${PendingExportStatus.Pending}'
        WHERE pe.connected_system_id = $1 AND pe.status = '${PendingExportStatus.Exported}' AND pe.id > $2::uuid
        ORDER BY pe.id LIMIT $3`,
      [this.systemId, after ?? NO_ID, limit],
    );
  }

  /** Applies a page of confirmation decisions: confirmed exports removed, the others updated (two statements). */
  async applyConfirmations(removeIds: readonly string[], updates: readonly PendingExportConfirmationUpdate[]): Promise<void> {
    if (removeIds.length) {
      await this.s.count(`DELETE FROM pending_export WHERE connected_system_id = $1 AND id = ANY($2::uuid[])`, [this.systemId, removeIds]);
    }
    if (updates.length) {
      await this.s.count(
        `UPDATE pending_export p
            SET status = coalesce(v.status, p.status), attribute_changes = v.changes::jsonb,
                confirmation_attempts = coalesce(v.attempts, p.confirmation_attempts), last_error = coalesce(v.last_error, p.last_error),
                last_updated = now()
           FROM unnest($2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[]) AS v(id, status, changes, attempts, last_error)
          WHERE p.id = v.id AND p.connected_system_id = $1`,
        [
          this.systemId,
          updates.map((u) => u.id),
          updates.map((u) => u.status),
          updates.map((u) => JSON.stringify(u.changes)),
          updates.map((u) => u.confirmationAttempts),
          updates.map((u) => u.lastError),
        ],
      );
    }
  }

  /**
   * `Normal` objects of the given types with an external ID: what a full import must meet, or obsolete
   * (obsoleteUnseen's candidates). Counted before the import reads anything.
   */
  async countNormal(objectTypeIds: readonly number[]): Promise<number> {
    const row = await this.s.row<{ n: number }>(
      `SELECT count(*)::int AS n FROM connected_system_object c WHERE c.connected_system_id = $1 AND ${obsoletionCandidates('$2')}`,
      [this.systemId, objectTypeIds],
    );
    return row?.n ?? 0;
  }

  /** Saves the delta watermark of a completed import. */
  async saveWatermark(watermark: string | null): Promise<void> {
    await this.s.count(`UPDATE connected_system SET delta_watermark = $2 WHERE id = $1`, [this.systemId, watermark]);
  }
}
