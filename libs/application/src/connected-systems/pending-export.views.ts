import type { AttributeMeta, PendingExportReadRow, StoredAttributeChange } from '@meridian/persistence';

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

const changesOf = (r: PendingExportReadRow): StoredAttributeChange[] => (Array.isArray(r.attributeChanges) ? r.attributeChanges : []);

/** Attribute ids named by the changes of these pending exports. */
export function changedAttributeIds(rows: PendingExportReadRow[]): number[] {
  return rows.flatMap((r) => changesOf(r).map((c) => Number(c.a)));
}

export function pendingExportView(r: PendingExportReadRow, attributes: Map<number, AttributeMeta>): PendingExportView {
  return {
    id: r.id,
    connectedSystemObjectId: r.connectedSystemObjectId,
    externalId: r.externalId,
    displayName: r.displayName,
    changeType: r.changeType,
    status: r.status,
    attributeChanges: changesOf(r).map((c) => ({
      attributeId: Number(c.a),
      attributeName: attributes.get(Number(c.a))?.name ?? null,
      operation: c.op,
      values: Array.isArray(c.v) ? c.v : [],
      metaverseObjectIds: Array.isArray(c.mv) && c.mv.length ? c.mv : null,
    })),
    errorCount: r.errorCount,
    confirmationAttempts: r.confirmationAttempts,
    nextAttemptAt: r.nextAttemptAt?.toISOString() ?? null,
    lastError: r.lastError,
    created: r.created.toISOString(),
    lastUpdated: r.lastUpdated?.toISOString() ?? null,
  };
}
