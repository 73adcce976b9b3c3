import { Provider } from '@nestjs/common';
import { ENGINE_RUNNERS } from './engine-runner';
import { ExportRunner } from './export.runner';
import { HousekeepingService } from './housekeeping.service';
import { ImportRunner } from './import.runner';
import { PendingDeletionsProcessor } from './pending-deletions.processor';
import { RunProfileExecutor } from './run-profile.executor';
import { SyncRunner } from './sync.runner';

export * from './engine-runner';
export * from './run-context';
export * from './run-profile.executor';
export * from './housekeeping.service';
export * from './system-schema';
export { ImportRunner, SyncRunner, ExportRunner, PendingDeletionsProcessor };

const RUNNERS = [ImportRunner, SyncRunner, ExportRunner];

/** The synchronisation engine: runners, the executor that runs them, and housekeeping. */
export const ENGINE_PROVIDERS: Provider[] = [
  ...RUNNERS,
  { provide: ENGINE_RUNNERS, useFactory: (...runners: unknown[]) => runners, inject: RUNNERS },
  RunProfileExecutor,
  PendingDeletionsProcessor,
  HousekeepingService,
];
