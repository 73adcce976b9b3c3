import { DynamicModule, Module } from '@nestjs/common';
import { ApplicationCoreModule, ScheduleRunnerModule, SchedulesServicesModule } from '@meridian/application';
import { AppConfig, Logger, PlatformModule } from '@meridian/platform';
import { LeaderService } from './leader.service';
import { ScheduleDispatcher } from './schedule-dispatcher.service';
import { ScheduleTickService } from './schedule-tick.service';
import { SCHEDULER_OPTIONS, SchedulerOptions } from './scheduler.options';

@Module({})
export class SchedulerModule {
  static forRoot(config: AppConfig, logger: Logger, options: SchedulerOptions = {}): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [
        PlatformModule.forRoot(config, logger),
        ApplicationCoreModule.forRoot(config),
        SchedulesServicesModule,
        ScheduleRunnerModule.forRoot({ staleAfterMs: options.staleAfterMs, killGraceMs: options.killGraceMs }),
      ],
      providers: [{ provide: SCHEDULER_OPTIONS, useValue: options }, LeaderService, ScheduleDispatcher, ScheduleTickService],
      exports: [LeaderService, ScheduleDispatcher, ScheduleTickService],
    };
  }
}
