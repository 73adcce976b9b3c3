import type { Provider } from '@nestjs/common';
import { ENGINE_RUNNERS } from './engine-runner';
import { ExportRunner } from './export.runner';
import { HousekeepingService } from './housekeeping.service';
import { ImportRunner } from './import.runner';
import { PendingDeletionsProcessor } from './pending-deletions.processor';
import { RunProfileExecutor } from './run-profile.executor';
import { SyncRunner } from './sync.runner';

const RUNNERS = [ImportRunner, SyncRunner, ExportRunner];

/** Services of this area, registered by EngineModule. */
export const ENGINE_PROVIDERS: Provider[] = [
  ...RUNNERS,
  { provide: ENGINE_RUNNERS, useFactory: (...runners: unknown[]) => runners, inject: RUNNERS },
  RunProfileExecutor,
  PendingDeletionsProcessor,
  HousekeepingService,
];
