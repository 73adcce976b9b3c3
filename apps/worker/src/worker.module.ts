import { DynamicModule, Module } from '@nestjs/common';
import {
  ApplicationCoreModule,
  ConnectedSystemDeletionModule,
  EngineModule,
  HistoryCleanupModule,
  QueueProbesModule,
} from '@meridian/application';
import { AppConfig, Logger, PlatformModule } from '@meridian/platform';
import { JOB_HANDLERS } from './handlers/job-handler';
import { ConnectedSystemDeletionHandler } from './handlers/connected-system-deletion.handler';
import { NoopHandler } from './handlers/noop.handler';
import { RunProfileHandler } from './handlers/run-profile.handler';
import { HousekeepingHandler } from './handlers/housekeeping.handler';
import { HistoryCleanupHandler } from './handlers/history-cleanup.handler';
import { JobsProcessor, RunsProcessor } from './jobs.processor';
import { HousekeepingScheduler } from './housekeeping.scheduler';

const HANDLERS = [NoopHandler, RunProfileHandler, ConnectedSystemDeletionHandler, HousekeepingHandler, HistoryCleanupHandler];

@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        PlatformModule.forRoot(config, logger),
        ApplicationCoreModule.forRoot(config),
        EngineModule,
        ConnectedSystemDeletionModule,
        HistoryCleanupModule,
        QueueProbesModule,
      ],
      providers: [
        ...HANDLERS,
        { provide: JOB_HANDLERS, useFactory: (...handlers: unknown[]) => handlers, inject: HANDLERS },
        JobsProcessor,
        RunsProcessor,
        HousekeepingScheduler,
      ],
    };
  }
}
