import { relativePathProblem } from '../common/relative-path';

/** What a run profile does (DOMAIN.md §1). */
export enum RunType {
  FullImport = 'FullImport',
  DeltaImport = 'DeltaImport',
  FullSynchronisation = 'FullSynchronisation',
  DeltaSynchronisation = 'DeltaSynchronisation',
  Export = 'Export',
}

export const RUN_TYPES: readonly RunType[] = Object.values(RunType);

/** The connector capability a run type needs; synchronisation never talks to the connector. */
export function requiredCapability(runType: RunType): 'fullImport' | 'deltaImport' | 'export' | null {
  switch (runType) {
    case RunType.FullImport:
      return 'fullImport';
    case RunType.DeltaImport:
      return 'deltaImport';
    case RunType.Export:
      return 'export';
    default:
      return null;
  }
}

/** Run types that call the connector (and so may read or write a file). */
export function runTypeUsesConnector(runType: RunType): boolean {
  return requiredCapability(runType) !== null;
}

/** Finds a run type by name, case-insensitively. */
export function parseRunType(value: unknown): RunType | undefined {
  if (typeof value !== 'string') return undefined;
  return RUN_TYPES.find((t) => t.toLowerCase() === value.toLowerCase());
}

/** Whether a connected system's attribute can be written by exports (the connector's schema says). */
export enum AttributeWritability {
  ReadOnly = 'ReadOnly',
  ReadWrite = 'ReadWrite',
}

/** What an import does with a reference value it cannot resolve (DOMAIN.md §2.1 rule 5). */
export enum UnresolvedReferenceHandling {
  Error = 'Error',
  Warn = 'Warn',
  Ignore = 'Ignore',
}

export const UNRESOLVED_REFERENCE_HANDLINGS: readonly UnresolvedReferenceHandling[] = Object.values(UnresolvedReferenceHandling);

/** Outcome of a connected system deletion request (spec 2.14, 3.6). */
export enum ConnectedSystemDeletionOutcome {
  CompletedImmediately = 'CompletedImmediately',
  QueuedAsBackgroundJob = 'QueuedAsBackgroundJob',
  QueuedAfterSync = 'QueuedAfterSync',
  Failed = 'Failed',
}

/**
 * Systems with at most this many connector space objects are deleted inside the request's
 * transaction; larger ones by a background job, in batches.
 */
export const IMMEDIATE_DELETION_MAX_OBJECTS = 1000;

/**
 * Checks a file path an administrator gives for a file-based connector: relative to the connector
 * files root, no `..` segments, no drive letters, no control characters. Returns a message or null.
 */
export function relativeFilePathProblem(path: string): string | null {
  return relativePathProblem(path, { description: 'connector files root (MERIDIAN_CONNECTOR_FILES_ROOT)', maxLength: 1000 });
}
