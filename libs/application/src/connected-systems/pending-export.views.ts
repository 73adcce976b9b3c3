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

/** A pending export as the API answers it: attribute changes named, timestamps as ISO text. */
export interface PendingExportView extends Omit<PendingExportReadRow, 'attributeChanges' | 'nextAttemptAt' | 'created' | 'lastUpdated'> {
  attributeChanges: PendingExportAttributeChangeView[];
  nextAttemptAt: string | null;
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
