import type { BulkSession } from './bulk-session';

/** One execution item (spec 2.5) as a runner records it: objects that changed or failed. */
export interface ExecutionItemRow {
  externalIdValue: string | null;
  displayName: string | null;
  objectType: string | null;
  objectChangeType: string;
  errorType?: string | null;
  errorMessage?: string | null;
  outcomeSummary?: string | null;
  connectedSystemObjectId?: string | null;
  metaverseObjectId?: string | null;
}

const COLUMNS = [
  'activity_id',
  'external_id_value',
  'display_name',
  'connected_system_object_type',
  'object_change_type',
  'error_type',
  'error_message',
  'outcome_summary',
  'connected_system_object_id',
  'metaverse_object_id',
];

/** Execution items, written in bulk (one COPY per flush, whatever the number of items). */
export class ExecutionItemStore {
  constructor(private readonly s: BulkSession) {}

  async insert(activityId: string, items: readonly ExecutionItemRow[]): Promise<void> {
    if (!items.length) return;
    await this.s.copy(
      'activity_execution_item',
      COLUMNS,
      items.map((i) => [
        activityId,
        i.externalIdValue,
        i.displayName,
        i.objectType,
        i.objectChangeType,
        i.errorType ?? null,
        i.errorMessage ?? null,
        i.outcomeSummary ?? null,
        i.connectedSystemObjectId ?? null,
        i.metaverseObjectId ?? null,
      ]),
    );
  }
}
