/** What happened to a connector space object (a change record, spec 2.13). */
export enum CsoChangeType {
  /** Imported for the first time, or created in the connected system by an export. */
  Added = 'Added',
  /** Values changed: by an import, or by an export that wrote them. */
  Updated = 'Updated',
  /** Gone from the connected system (deletion detection, a delta delete): synchronisation will remove it. */
  Obsoleted = 'Obsoleted',
  /** Removed from the connector space. */
  Deleted = 'Deleted',
}

/** What happened to a metaverse object (a change record, spec 2.13). */
export enum MvoChangeType {
  /** Created from a connector space object (the record names it). */
  Projected = 'Projected',
  /** Values changed by inbound attribute flow (old and new values, contributing system). */
  AttributeFlow = 'AttributeFlow',
  /** A connector space object joined it (matching rules, or adoption before provisioning). */
  Joined = 'Joined',
  /** A new object was provisioned for it in a connected system (a placeholder until exported). */
  Provisioned = 'Provisioned',
  /** A connector space object left it (obsoleted, out of scope, or disconnected by an export rule). */
  Disconnected = 'Disconnected',
  Deleted = 'Deleted',
}

/**
 * One attribute of a change record, as stored (compact keys: change records are written a page at a
 * time and can number in the tens of millions): attribute id, old values, new values and, for metaverse
 * objects, the connected system that contributed the new values (or the old ones, when they were removed).
 */
export interface StoredAttributeDelta {
  a: number;
  o: unknown[];
  n: unknown[];
  s?: number | null;
}
