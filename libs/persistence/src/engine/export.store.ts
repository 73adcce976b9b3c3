import { ConnectorSpaceObjectStatus, CsoChangeType, PendingExportChangeType, PendingExportStatus } from '@meridian/domain';
import type { StoredAttributeChange } from '../entities/engine.entity';
import { escapeCopyJson, PreEncoded } from '../bulk/copy-rows';
import type { BulkSession } from './bulk-session';
import { NO_ID } from './keyset';
import { changeOriginParams, insertCsoChangesSql, sqlLiteral } from './change-record.sql';
import type { ChangeOrigin } from './change-record.store';

/** A due pending export with what its export needs of its object. */
export interface ExportPageRow {
  id: string;
  csoId: string;
  changeType: string;
  attributeChanges: StoredAttributeChange[];
  /** The row version as read (`xmin`: every update writes a new one): the apply step recognises an export changed meanwhile by it. */
  fingerprint: string;
  errorCount: number;
  objectTypeId: number;
  externalId: string | null;
  secondaryExternalId: string | null;
  status: string;
  displayName: string | null;
  metaverseObjectId: string | null;
  /**
   * The object held no values when read (a placeholder awaiting its Create). Nothing else writes an
   * object's values while its system's export runs (imports of the system wait for its lock;
   * synchronisations write joins, not values), so it still holds none when the results are applied.
   */
  empty: boolean;
  /** The object's current values of the attributes the export touches (only those). */
  current: Record<string, unknown[]>;
  /** The object's resolved references of the attributes the export touches: connector space object ids. */
  currentReferences: Record<string, Array<string | null>>;
}

/** The object a metaverse object is joined to in one connected system. */
export interface ExportReferenceTarget {
  metaverseObjectId: string;
  csoId: string;
  objectTypeId: number;
  status: string;
  externalId: string | null;
  secondaryExternalId: string | null;
}

/** The outcome of one export as the run stages it until the connector has committed. */
export interface StagedExportResult {
  pendingExportId: string;
  csoId: string;
  changeType: string;
  fingerprint: string;
  errorCount: number;
  objectTypeId: number | null;
  objectType: string | null;
  displayName: string | null;
  metaverseObjectId: string | null;
  /** The object held no values when read (ExportPageRow.empty). */
  empty: boolean;
  success: boolean;
  confirmed: boolean;
  externalId: string | null;
  secondaryExternalId: string | null;
  error: string | null;
  /** The changes written (stored form; reference values as the identifiers sent, `mv` kept). Staged only when not confirmed: only the confirming import needs them. */
  sent: StoredAttributeChange[];
  /** Changes held back (references whose targets have no identifier yet); null when none. */
  deferred: StoredAttributeChange[] | null;
  /** Values the object holds once the export succeeded: attributes set and removed. */
  attributesSet: Record<string, unknown[]>;
  attributesUnset: string[];
  /** Resolved references (connector space object ids) set and removed with them. */
  referencesSet: Record<string, Array<string | null>>;
  referencesUnset: string[];
  /**
   * A successful Create, when change records are kept: the `Added` record's attribute changes as JSON
   * text ([{a, o: [], n}] in attribute id order), built by the runner from the values written, so the
   * apply need not compare the object's values before and after in the database.
   */
  addedChanges?: string | null;
}

/** What applying the staged results did. */
export interface ExportApplySummary {
  created: number;
  updated: number;
  deleted: number;
  failed: number;
  /** Failures that reached the maximum number of attempts: the export is now `Failed`. */
  gaveUp: number;
  /** Failures still pending (retried later) and the first of their messages. */
  retrying: number;
  firstRetryError: string | null;
  /** Exports written but changed by a synchronisation meanwhile: they stay pending with the new content. */
  superseded: number;
  /** Creates whose external ID already belongs to another object of the same type. */
  conflicts: number;
}

/** The values the execution items of an export carry (the runner's enums; the store writes them as given). */
export interface ExportItemKinds {
  exportChange: string;
  deprovisionChange: string;
  failedErrorType: string;
  exportedSummary: string;
  deprovisionedSummary: string;
}

/** Execution items an export wrote: successful exports (not deletes), deletes, exports that gave up. */
export interface ExportItemCounts {
  exported: number;
  deprovisioned: number;
  failed: number;
}

/** Every result the run staged, until the connector committed. */
const RESULTS = 'meridian_export_results';
/** The part of them being applied (see apply). */
const PART = 'meridian_export_apply';
const RESULT_COLUMNS = [
  'pe_id',
  'cso_id',
  'change_type',
  'fingerprint',
  'error_count',
  'object_type_id',
  'object_type',
  'display_name',
  'metaverse_object_id',
  'success',
  'confirmed',
  'external_id',
  'secondary_external_id',
  'error',
  'sent',
  'deferred',
  'attributes_set',
  'attributes_unset',
  'references_set',
  'references_unset',
  'added_changes',
  'was_empty',
];
const ANALYSED_COLUMNS = ['pe_id', 'cso_id', 'change_type', 'object_type_id', 'success', 'confirmed', 'external_id', 'was_empty'];
const RESULTS_DDL = `pe_id uuid PRIMARY KEY, cso_id uuid NOT NULL, change_type text NOT NULL, fingerprint text NOT NULL, error_count int NOT NULL,
  object_type_id int, object_type text, display_name text, metaverse_object_id uuid,
  success boolean NOT NULL, confirmed boolean NOT NULL, external_id text, secondary_external_id text, error text,
  sent jsonb, deferred jsonb, attributes_set jsonb NOT NULL, attributes_unset jsonb NOT NULL, references_set jsonb NOT NULL, references_unset jsonb NOT NULL,
  added_changes json, was_empty boolean NOT NULL, current boolean NOT NULL DEFAULT true`;

const PENDING = `'${PendingExportStatus.Pending}'`;
const CREATE = `'${PendingExportChangeType.Create}'`;
const UPDATE = `'${PendingExportChangeType.Update}'`;
const DELETE = `'${PendingExportChangeType.Delete}'`;
const DUE = `p.connected_system_id = $1 AND p.status = ${PENDING} AND (p.next_attempt_at IS NULL OR p.next_attempt_at <= now())`;
/** Keys of the attributes a pending export touches. */
const TOUCHED = `SELECT DISTINCT e ->> 'a' AS k FROM jsonb_array_elements(p.attribute_changes) e`;
/** Retry delay after the n-th failure: 30 s × 2^(n-1), at most an hour. */
const RETRY_DELAY = `least(interval '30 seconds' * power(2, least(p.error_count, 20)), interval '1 hour')`;

/**
 * The SQL of an export run (docs/engine.md, "Export"): due pending exports in keyset pages, reference
 * targets per page, and results staged in a session temporary table until the connector committed,
 * then applied set-based in a constant number of statements.
 */
export class ExportStore {
  /**
   * `changeOrigin`: the run records connector space object changes (spec 2.13) with this origin, written
   * by the apply statements that make them (see apply). Null: the run records nothing.
   */
  constructor(
    private readonly s: BulkSession,
    private readonly changeOrigin: ChangeOrigin | null = null,
  ) {}

  /** The results table of this session holds statistics (see apply). */
  private analysed = false;

  /** The session the store works on (its results tables live as long as it). */
  get session(): BulkSession {
    return this.s;
  }

  /** Pending exports of a system that are due now. */
  async countDue(systemId: number): Promise<number> {
    const row = await this.s.row<{ n: string }>(`SELECT count(*) AS n FROM pending_export p WHERE ${DUE}`, [systemId]);
    return Number(row?.n ?? 0);
  }

  /** Creates (once per connection) and empties the results tables of this run. */
  async prepare(): Promise<void> {
    await this.s.stage(RESULTS, RESULTS_DDL);
    await this.s.stage(PART, RESULTS_DDL);
  }

  /** The next page of due pending exports after `after` (keyset on the pending export id), with their objects. */
  async page(systemId: number, after: string | null, limit: number): Promise<ExportPageRow[]> {
    return this.s.rows<ExportPageRow>(
      `SELECT p.id, p.connected_system_object_id AS "csoId", p.change_type AS "changeType", p.attribute_changes AS "attributeChanges",
              p.xmin::text AS fingerprint, p.error_count AS "errorCount",
              c.object_type_id AS "objectTypeId", c.external_id AS "externalId", c.secondary_external_id AS "secondaryExternalId",
              c.status, c.display_name AS "displayName", c.metaverse_object_id AS "metaverseObjectId", c.attributes = '{}'::jsonb AS empty,
              CASE WHEN c.attributes = '{}'::jsonb THEN '{}'::jsonb
                   ELSE (SELECT coalesce(jsonb_object_agg(k, c.attributes -> k), '{}') FROM (${TOUCHED}) t WHERE c.attributes ? k) END AS current,
              CASE WHEN c.resolved_references IS NULL OR c.resolved_references = '{}'::jsonb THEN '{}'::jsonb
                   ELSE (SELECT coalesce(jsonb_object_agg(k, c.resolved_references -> k), '{}') FROM (${TOUCHED}) t
                          WHERE c.resolved_references ? k) END AS "currentReferences"
         FROM pending_export p JOIN connected_system_object c ON c.id = p.connected_system_object_id
        WHERE ${DUE} AND p.id > $2::uuid
        ORDER BY p.id LIMIT $3`,
      [systemId, after ?? NO_ID, limit],
    );
  }

  /** The objects the given metaverse objects are joined to in this system (one per metaverse object). */
  async referenceTargets(systemId: number, metaverseObjectIds: readonly string[]): Promise<ExportReferenceTarget[]> {
    if (!metaverseObjectIds.length) return [];
    return this.s.rows<ExportReferenceTarget>(
      `SELECT DISTINCT ON (c.metaverse_object_id) c.metaverse_object_id AS "metaverseObjectId", c.id AS "csoId", c.object_type_id AS "objectTypeId",
              c.status, c.external_id AS "externalId", c.secondary_external_id AS "secondaryExternalId"
         FROM connected_system_object c
        WHERE c.metaverse_object_id = ANY($2::uuid[]) AND c.connected_system_id = $1
        ORDER BY c.metaverse_object_id, (c.status = '${ConnectorSpaceObjectStatus.Normal}') DESC, c.id`,
      [systemId, metaverseObjectIds],
    );
  }

  /** Stages the results of one written batch (one COPY, whatever its size). */
  async stage(results: readonly StagedExportResult[]): Promise<void> {
    if (!results.length) return;
    await this.s.copy(
      RESULTS,
      RESULT_COLUMNS,
      results.map((r) => [
        r.pendingExportId,
        r.csoId,
        r.changeType,
        r.fingerprint,
        r.errorCount,
        r.objectTypeId,
        r.objectType,
        r.displayName,
        r.metaverseObjectId,
        r.success,
        r.confirmed,
        r.externalId,
        r.secondaryExternalId,
        r.error,
        r.confirmed ? null : r.sent,
        r.deferred,
        r.attributesSet,
        r.attributesUnset,
        r.referencesSet,
        r.referencesUnset,
        r.addedChanges ? new PreEncoded(escapeCopyJson(r.addedChanges)) : null,
        r.empty,
      ]),
    );
  }

  /**
   * Applies the staged results of the pending exports after `after` up to `upTo` (ids; `after` null: from
   * the first), after the connector committed. Call inside a transaction, one per part: a run applies
   * its results in parts of bounded size (docs/engine.md, "Applying results"), each part moved to a
   * small table of its own first, so every statement below joins a part, never the whole run. An export
   * that a synchronisation changed since it was read keeps its new content and stays pending; its object
   * still takes what was written. Statements: constant, whatever the number of results.
   */
  async apply(systemId: number, maxAttempts: number, after: string | null, upTo: string): Promise<ExportApplySummary> {
    await this.s.count(`TRUNCATE ${PART}`);
    await this.s.count(`INSERT INTO ${PART} SELECT * FROM ${RESULTS} WHERE pe_id > $1::uuid AND pe_id <= $2::uuid`, [after ?? NO_ID, upTo]);
    // Temporary tables are never analysed automatically; the joins below need the statistics of the
    // columns they join and filter on (the values staged as JSON are not looked at). The first part a
    // session applies takes them; its later parts keep them (TRUNCATE keeps a table's statistics, and
    // the planner counts a part's rows from its actual size).
    if (!this.analysed) {
      await this.s.count(`ANALYZE ${PART} (${ANALYSED_COLUMNS.join(', ')})`);
      this.analysed = true;
    }
    // Locks the exports that are still as read (in id order), so a synchronisation merging into one of
    // them waits for this transaction, and one that got there first is recognised as changed. The count
    // reads the locking query to its end (every row locked); then only the results whose export was
    // changed are marked (`current` false, usually none): a lock never changes a row's version.
    await this.s.row(
      `SELECT count(*) FROM (SELECT p.id FROM pending_export p JOIN ${PART} x ON x.pe_id = p.id
                               WHERE p.status = ${PENDING} AND p.change_type = x.change_type AND p.xmin::text = x.fingerprint
                               ORDER BY p.id FOR UPDATE OF p) l`,
    );
    await this.s.count(
      `UPDATE ${PART} r SET current = false
        WHERE NOT EXISTS (SELECT 1 FROM pending_export p
                           WHERE p.id = r.pe_id AND p.status = ${PENDING} AND p.change_type = r.change_type AND p.xmin::text = r.fingerprint)`,
    );
    // The external ID of a created object is unique per type: a second claimant fails instead of the whole apply.
    const conflicts = await this.s.count(
      `UPDATE ${PART} r SET success = false,
              error = 'The external ID "' || r.external_id || '" already belongs to another object of type "' || coalesce(r.object_type, '?')
                      || '" in the connector space; the row was written, but the object was not recorded. Resolve the duplicate.'
         FROM (SELECT d.pe_id FROM (
                 SELECT x.pe_id, row_number() OVER (PARTITION BY x.object_type_id, x.external_id ORDER BY x.pe_id) AS n
                   FROM ${PART} x WHERE x.success AND x.change_type = ${CREATE} AND x.external_id IS NOT NULL) d
                WHERE d.n > 1
               UNION
               SELECT x.pe_id FROM ${PART} x
                 JOIN connected_system_object o ON o.connected_system_id = $1 AND o.object_type_id = x.object_type_id
                                               AND o.external_id = x.external_id AND o.id <> x.cso_id
                WHERE x.success AND x.change_type = ${CREATE} AND x.external_id IS NOT NULL) bad
        WHERE r.pe_id = bad.pe_id`,
      [systemId],
    );
    // The object takes the written values at once; its content hash is cleared so the next import rewrites it.
    const write = `UPDATE connected_system_object c SET
              external_id = CASE WHEN r.change_type = ${CREATE} THEN coalesce(r.external_id, c.external_id) ELSE c.external_id END,
              secondary_external_id = coalesce(r.secondary_external_id, c.secondary_external_id),
              status = CASE WHEN c.status = '${ConnectorSpaceObjectStatus.PendingProvisioning}' THEN '${ConnectorSpaceObjectStatus.Normal}' ELSE c.status END,
              attributes = (c.attributes || r.attributes_set) - ARRAY(SELECT jsonb_array_elements_text(r.attributes_unset)),
              resolved_references = CASE WHEN r.references_set = '{}'::jsonb AND r.references_unset = '[]'::jsonb THEN c.resolved_references
                ELSE (coalesce(c.resolved_references, '{}'::jsonb) || r.references_set) - ARRAY(SELECT jsonb_array_elements_text(r.references_unset)) END,
              content_hash = NULL, last_updated = now()
         FROM ${PART} r`;
    const written = `c.id = r.cso_id AND r.success AND r.change_type <> ${DELETE}`;
    if (!this.changeOrigin) await this.s.count(`${write} WHERE ${written}`);
    else {
      // The same update, recording what it wrote: a Create as `Added` with every value the object now
      // holds, an Update as `Updated` with the attributes whose values it changed (one that changed none
      // records nothing). Objects that held no values (placeholders: most Creates) need no reading of
      // their values before the update: a Create records the changes the runner staged, anything else
      // every value it now holds. The others are read a second time (p), for the values from before.
      const records = insertCsoChangesSql(
        `applied WHERE change_type = ${CREATE} OR delta <> '[]'::jsonb`,
        {
          connectedSystemId: 'connected_system_id',
          objectId: 'id',
          objectTypeId: 'object_type_id',
          externalId: 'external_id',
          displayName: 'display_name',
          changeType: `CASE WHEN change_type = ${CREATE} THEN ${sqlLiteral(CsoChangeType.Added)} ELSE ${sqlLiteral(CsoChangeType.Updated)} END`,
          attributeChanges: 'delta',
        },
        1,
      );
      const returning = `RETURNING c.id, c.connected_system_id, c.object_type_id, c.external_id, c.display_name, r.change_type`;
      await this.s.count(
        `WITH applied AS (
           ${write}
            WHERE ${written} AND r.was_empty
           ${returning},
                     CASE WHEN r.change_type = ${CREATE} AND r.added_changes IS NOT NULL THEN r.added_changes::jsonb
                          ELSE meridian_attribute_delta('{}'::jsonb, c.attributes) END AS delta)
         ${records}`,
        changeOriginParams(this.changeOrigin),
      );
      await this.s.count(
        `WITH applied AS (
           ${write} JOIN connected_system_object p ON p.id = r.cso_id
            WHERE ${written} AND NOT r.was_empty
           ${returning},
                     CASE WHEN r.change_type = ${CREATE} THEN meridian_attribute_delta('{}'::jsonb, c.attributes)
                          ELSE meridian_attribute_delta(p.attributes, c.attributes) END AS delta)
         ${records}`,
        changeOriginParams(this.changeOrigin),
      );
    }
    // A deleted object leaves the connector space (its pending exports go with it).
    const remove = `DELETE FROM connected_system_object c USING ${PART} r
        WHERE c.id = r.cso_id AND r.success AND r.change_type = ${DELETE}`;
    if (!this.changeOrigin) await this.s.count(remove);
    else {
      // …recorded as `Deleted` with the names of its type and system (the deleted-objects list shows them
      // once both may be gone), except a placeholder that never existed in the system (never created, no
      // external ID): it leaves nothing to record.
      await this.s.count(
        `WITH removed AS (
           ${remove}
           RETURNING c.id, c.connected_system_id, c.object_type_id, c.external_id, c.display_name, c.status, r.object_type)
         ${insertCsoChangesSql(
           `removed d LEFT JOIN connected_system_object_type t ON t.id = d.object_type_id LEFT JOIN connected_system s ON s.id = d.connected_system_id
             WHERE NOT (d.status = '${ConnectorSpaceObjectStatus.PendingProvisioning}' AND d.external_id IS NULL)`,
           {
             connectedSystemId: 'd.connected_system_id',
             objectId: 'd.id',
             objectTypeId: 'd.object_type_id',
             externalId: 'd.external_id',
             displayName: 'd.display_name',
             changeType: sqlLiteral(CsoChangeType.Deleted),
             objectTypeName: 'coalesce(d.object_type, t.name)',
             connectedSystemName: 's.name',
           },
           1,
         )}`,
        changeOriginParams(this.changeOrigin),
      );
    }
    // Confirmed by the connector and nothing held back: done.
    await this.s.count(
      `DELETE FROM pending_export p USING ${PART} r
        WHERE p.id = r.pe_id AND r.current AND r.success AND r.confirmed AND r.deferred IS NULL`,
    );
    // Confirmed with references held back: the export becomes an Update of just those.
    // Not confirmed: it waits for the confirming import with what was written.
    await this.s.count(
      `UPDATE pending_export p SET
              status = CASE WHEN r.confirmed THEN ${PENDING} ELSE '${PendingExportStatus.Exported}' END,
              change_type = CASE WHEN r.confirmed THEN ${UPDATE} ELSE p.change_type END,
              attribute_changes = CASE WHEN r.confirmed THEN r.deferred ELSE r.sent END,
              error_count = 0, last_error = NULL, next_attempt_at = NULL, last_updated = now()
         FROM ${PART} r
        WHERE p.id = r.pe_id AND r.current AND r.success AND r.change_type <> ${DELETE} AND (NOT r.confirmed OR r.deferred IS NOT NULL)`,
    );
    // …and then the references held back follow as a new pending Update.
    await this.s.count(
      `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type, status, attribute_changes, last_updated)
       SELECT $1, r.cso_id, ${UPDATE}, ${PENDING}, r.deferred, now()
         FROM ${PART} r
        WHERE r.current AND r.success AND NOT r.confirmed AND r.deferred IS NOT NULL AND r.change_type <> ${DELETE}
       ON CONFLICT (connected_system_object_id) WHERE status = ${PENDING} DO NOTHING`,
      [systemId],
    );
    // A create that was written but merged into meanwhile: the object exists now, so the rest is an update.
    await this.s.count(
      `UPDATE pending_export p SET change_type = ${UPDATE}, last_updated = now()
         FROM ${PART} r
        WHERE p.id = r.pe_id AND NOT r.current AND r.success AND r.change_type = ${CREATE}
          AND p.status = ${PENDING} AND p.change_type = ${CREATE}`,
    );
    // Failures: retried later with a growing delay, until the maximum number of attempts.
    await this.s.count(
      `UPDATE pending_export p SET
              error_count = p.error_count + 1, last_error = r.error, last_updated = now(),
              status = CASE WHEN p.error_count + 1 >= $1 THEN '${PendingExportStatus.Failed}' ELSE ${PENDING} END,
              next_attempt_at = CASE WHEN p.error_count + 1 >= $1 THEN NULL ELSE now() + ${RETRY_DELAY} END
         FROM ${PART} r
        WHERE p.id = r.pe_id AND r.current AND NOT r.success`,
      [maxAttempts],
    );
    const row = await this.s.row<Record<Exclude<keyof ExportApplySummary, 'conflicts'>, string | null>>(
      `SELECT count(*) FILTER (WHERE success AND change_type = ${CREATE}) AS created,
              count(*) FILTER (WHERE success AND change_type = ${UPDATE}) AS updated,
              count(*) FILTER (WHERE success AND change_type = ${DELETE}) AS deleted,
              count(*) FILTER (WHERE NOT success) AS failed,
              count(*) FILTER (WHERE NOT success AND current AND error_count + 1 >= $1) AS "gaveUp",
              count(*) FILTER (WHERE NOT success AND current AND error_count + 1 < $1) AS retrying,
              (array_agg(error ORDER BY pe_id) FILTER (WHERE NOT success AND current AND error_count + 1 < $1))[1] AS "firstRetryError",
              count(*) FILTER (WHERE NOT current AND change_type <> ${DELETE}) AS superseded
         FROM ${PART}`,
      [maxAttempts],
    );
    return {
      created: Number(row?.created ?? 0),
      updated: Number(row?.updated ?? 0),
      deleted: Number(row?.deleted ?? 0),
      failed: Number(row?.failed ?? 0),
      gaveUp: Number(row?.gaveUp ?? 0),
      retrying: Number(row?.retrying ?? 0),
      firstRetryError: row?.firstRetryError ?? null,
      superseded: Number(row?.superseded ?? 0),
      conflicts,
    };
  }

  /**
   * The execution items of the applied results, written by one INSERT … SELECT from the results table
   * (nothing read back into the worker): successes (`Export` / `Exported:1`, a delete `Deprovision` /
   * `Deprovisioned:1`) and exports that gave up (`ConnectorError`), in pending export order. Answers how
   * many of each, for the run's counters and outcome totals.
   */
  async insertItems(activityId: string, maxAttempts: number, kinds: ExportItemKinds): Promise<ExportItemCounts> {
    const row = await this.s.row<{ exported: number; deprovisioned: number; failed: number }>(
      `WITH items AS (
         INSERT INTO activity_execution_item (activity_id, external_id_value, display_name, connected_system_object_type, object_change_type,
                                              error_type, error_message, outcome_summary, connected_system_object_id, metaverse_object_id)
         SELECT $1, external_id, display_name, object_type,
                CASE WHEN NOT success THEN $3 WHEN change_type = ${DELETE} THEN $4 ELSE $3 END,
                CASE WHEN success THEN NULL ELSE $5 END,
                CASE WHEN success THEN NULL
                     ELSE change_type || ' failed ' || (error_count + 1) || ' time(s); the export is now Failed: ' || coalesce(error, 'no message') END,
                CASE WHEN NOT success THEN NULL WHEN change_type = ${DELETE} THEN $6 ELSE $7 END,
                cso_id, metaverse_object_id
           FROM ${PART}
          WHERE success OR (current AND error_count + 1 >= $2)
          ORDER BY pe_id
         RETURNING object_change_type, error_type)
       SELECT count(*) FILTER (WHERE error_type IS NULL AND object_change_type = $3)::int AS exported,
              count(*) FILTER (WHERE object_change_type = $4)::int AS deprovisioned,
              count(*) FILTER (WHERE error_type IS NOT NULL)::int AS failed
         FROM items`,
      [
        activityId,
        maxAttempts,
        kinds.exportChange,
        kinds.deprovisionChange,
        kinds.failedErrorType,
        kinds.deprovisionedSummary,
        kinds.exportedSummary,
      ],
    );
    return { exported: row?.exported ?? 0, deprovisioned: row?.deprovisioned ?? 0, failed: row?.failed ?? 0 };
  }

  /** Empties the results tables (they live as long as the pooled connection). */
  async clear(): Promise<void> {
    await this.s.count(`TRUNCATE ${RESULTS}, ${PART}`);
  }
}
