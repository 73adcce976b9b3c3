/** Status of a connector space object (DOMAIN.md §1). */
export enum ConnectorSpaceObjectStatus {
  Normal = 'Normal',
  /** Gone from the source (or deleted by a delta import), not yet processed by synchronisation. */
  Obsolete = 'Obsolete',
  /** Created by synchronisation for provisioning, not yet exported. */
  PendingProvisioning = 'PendingProvisioning',
}

/** How a connector space object came to be joined to its metaverse object. */
export enum JoinType {
  Projected = 'Projected',
  Joined = 'Joined',
  Provisioned = 'Provisioned',
}

export enum PendingExportChangeType {
  Create = 'Create',
  Update = 'Update',
  Delete = 'Delete',
}

export enum PendingExportStatus {
  /** Staged, waiting for (or retrying) an export. */
  Pending = 'Pending',
  /** Written to the system, awaiting the confirming import. */
  Exported = 'Exported',
  /** Gave up after the maximum retries or confirmation attempts. */
  Failed = 'Failed',
}

export enum AttributeChangeOperation {
  Add = 'Add',
  Replace = 'Replace',
  Remove = 'Remove',
  RemoveAll = 'RemoveAll',
}

/** Error types of execution items (spec 2.5 plus DOMAIN.md §2.5). */
export enum ExecutionErrorType {
  AmbiguousMatch = 'AmbiguousMatch',
  CouldNotMatchObjectType = 'CouldNotMatchObjectType',
  MissingExternalIdAttributeValue = 'MissingExternalIdAttributeValue',
  DuplicateObject = 'DuplicateObject',
  UnresolvedReference = 'UnresolvedReference',
  UnhandledError = 'UnhandledError',
  CouldNotJoinDueToExistingJoin = 'CouldNotJoinDueToExistingJoin',
  MultiValuedToSingleValued = 'MultiValuedToSingleValued',
  ExpressionEvaluationError = 'ExpressionEvaluationError',
  ImportAttributeValueError = 'ImportAttributeValueError',
  ExportNotConfirmed = 'ExportNotConfirmed',
  ConnectorError = 'ConnectorError',
}

/** `objectChangeType` of an execution item (spec 2.5). */
export enum ObjectChangeType {
  Add = 'Add',
  Update = 'Update',
  Delete = 'Delete',
  Obsolete = 'Obsolete',
  Join = 'Join',
  Project = 'Project',
  Disconnect = 'Disconnect',
  AttributeFlow = 'AttributeFlow',
  Provision = 'Provision',
  Export = 'Export',
  Deprovision = 'Deprovision',
  NoChange = 'NoChange',
}

/** Outcomes counted in an execution item's `outcomeSummary` (`Outcome:count` pairs). */
export enum SyncOutcome {
  Added = 'Added',
  Updated = 'Updated',
  Deleted = 'Deleted',
  Projected = 'Projected',
  Joined = 'Joined',
  AttributeFlow = 'AttributeFlow',
  Disconnected = 'Disconnected',
  Provisioned = 'Provisioned',
  PendingExportCreated = 'PendingExportCreated',
  Exported = 'Exported',
  Deprovisioned = 'Deprovisioned',
  ExportConfirmed = 'ExportConfirmed',
  MetaverseObjectDeleted = 'MetaverseObjectDeleted',
  PendingDeletion = 'PendingDeletion',
}

/** Pending deletion status (spec 3.4). */
export enum PendingDeletionStatus {
  Deprovisioning = 'Deprovisioning',
  AwaitingGracePeriod = 'AwaitingGracePeriod',
  ReadyForDeletion = 'ReadyForDeletion',
}

/** Formats outcome counts as `Outcome:count` pairs in a stable order (the order of first appearance). */
export function formatOutcomeSummary(outcomes: ReadonlyMap<string, number> | Readonly<Record<string, number>>): string | null {
  // One pass, no intermediate arrays: runs once per execution item.
  let summary: string | null = null;
  const add = (k: string, n: number) => {
    if (n > 0) summary = summary === null ? `${k}:${n}` : `${summary},${k}:${n}`;
  };
  if (outcomes instanceof Map) for (const [k, n] of outcomes) add(k, n);
  else for (const k of Object.keys(outcomes)) add(k, (outcomes as Readonly<Record<string, number>>)[k]);
  return summary;
}
