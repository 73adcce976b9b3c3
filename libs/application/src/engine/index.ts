import { ExportRunner } from './export.runner';
import { ImportRunner } from './import.runner';
import { PendingDeletionsProcessor } from './pending-deletions.processor';
import { SyncRunner } from './sync.runner';

export * from './engine-runner';
export * from './run-context';
export * from './run-profile.executor';
export * from './housekeeping.service';
export * from './system-schema';
export { ImportRunner, SyncRunner, ExportRunner, PendingDeletionsProcessor };
export { APPLY_PART_PAGES } from './export.runner';
export { SyncPage } from './sync-page';
export * from './engine.providers';
export * from './engine.module';
