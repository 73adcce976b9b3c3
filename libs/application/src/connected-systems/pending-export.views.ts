import type { StoredAttributeChange } from '@meridian/persistence';
import type { SqlRunner } from '../common/bounded-count';

export interface PendingExportAttributeChangeView {
  attributeId: number;
  /** null when the attribute no longer exists in the system's schema. */
  attributeName: string | null;
  operation: string;
  values: unknown[];
  /** Reference values still expressed as metaverse object ids (resolved at export time); null when none. */
  metaverseObjectIds: string[] | null;
}

export interface PendingExportView {
  id: string;
  connectedSystemObjectId: string;
  externalId: string | null;
  displayName: string | null;
  changeType: string;
  status: string;
  attributeChanges: PendingExportAttributeChangeView[];
  errorCount: number;
  confirmationAttempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  created: string;
  lastUpdated: string | null;
}

export interface PendingExportRow {
  id: string;
  connected_system_object_id: string;
  external_id: string | null;
  display_name: string | null;
  change_type: string;
  status: string;
  attribute_changes: StoredAttributeChange[] | null;
  error_count: number;
  confirmation_attempts: number;
  next_attempt_at: Date | null;
  last_error: string | null;
  created: Date;
  last_updated: Date | null;
}

/** Columns of PendingExportRow from `pending_export pe JOIN connected_system_object c`. */
export const PENDING_EXPORT_COLUMNS = `pe.id, pe.connected_system_object_id, c.external_id, c.display_name, pe.change_type, pe.status, pe.attribute_changes,
  pe.error_count, pe.confirmation_attempts, pe.next_attempt_at, pe.last_error, pe.created, pe.last_updated`;

export interface AttributeMeta {
  id: number;
  name: string;
  type: string;
}

/** Names and types of connected-system attributes by id (only the ids asked for). */
export async function attributeMeta(runner: SqlRunner, ids: Iterable<number>): Promise<Map<number, AttributeMeta>> {
  const wanted = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647);
  if (!wanted.length) return new Map();
  const rows: AttributeMeta[] = await runner.query(`SELECT id, name, type FROM connected_system_attribute WHERE id = ANY($1::int[])`, [
    wanted,
  ]);
  return new Map(rows.map((r) => [r.id, r]));
}

const changesOf = (r: PendingExportRow): StoredAttributeChange[] => (Array.isArray(r.attribute_changes) ? r.attribute_changes : []);

/** Attribute ids named by the changes of these pending exports. */
export function changedAttributeIds(rows: PendingExportRow[]): number[] {
  return rows.flatMap((r) => changesOf(r).map((c) => Number(c.a)));
}

export function pendingExportView(r: PendingExportRow, attributes: Map<number, AttributeMeta>): PendingExportView {
  return {
    id: r.id,
    connectedSystemObjectId: r.connected_system_object_id,
    externalId: r.external_id,
    displayName: r.display_name,
    changeType: r.change_type,
    status: r.status,
    attributeChanges: changesOf(r).map((c) => ({
      attributeId: Number(c.a),
      attributeName: attributes.get(Number(c.a))?.name ?? null,
      operation: c.op,
      values: Array.isArray(c.v) ? c.v : [],
      metaverseObjectIds: Array.isArray(c.mv) && c.mv.length ? c.mv : null,
    })),
    errorCount: r.error_count,
    confirmationAttempts: r.confirmation_attempts,
    nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    lastError: r.last_error,
    created: r.created.toISOString(),
    lastUpdated: r.last_updated?.toISOString() ?? null,
  };
}
