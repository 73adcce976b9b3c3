import { DynamicModule, Module } from '@nestjs/common';
import { ApplicationCoreModule, ScheduleRunnerModule, SchedulesServicesModule } from '@meridian/application';
import { APP_CONFIG, AppConfig, Logger, LOGGER, PlatformModule } from '@meridian/platform';
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
        ScheduleRunnerModule,
      ],
      providers: [
        { provide: SCHEDULER_OPTIONS, useValue: options },
        {
          provide: LeaderService,
          inject: [APP_CONFIG, LOGGER],
          useFactory: (appConfig: AppConfig, log: Logger) => {
            const leader = new LeaderService(appConfig, log);
            if (options.leaderIntervalMs !== undefined) leader.intervalMs = options.leaderIntervalMs;
            return leader;
          },
        },
        ScheduleDispatcher,
        ScheduleTickService,
      ],
      exports: [LeaderService, ScheduleDispatcher, ScheduleTickService],
    };
  }
}
