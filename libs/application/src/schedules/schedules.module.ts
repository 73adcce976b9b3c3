import { DynamicModule, Module } from '@nestjs/common';
import { RunProfileLaunchModule } from '../connected-systems/connected-systems.module';
import { SCHEDULE_ENGINE_OPTIONS, ScheduleEngineOptions, scheduleEngineOptions } from './engine/schedule-engine.options';
import { SCHEDULE_RUNNER_PROVIDERS, SCHEDULES_PROVIDERS } from './schedules.providers';

/** Schedules and their executions, as the API manages them. */
@Module({ providers: SCHEDULES_PROVIDERS, exports: SCHEDULES_PROVIDERS })
export class SchedulesServicesModule {}

/** Running schedule executions step by step: what the scheduler process does (tuning: defaults unless given). */
@Module({})
export class ScheduleRunnerModule {
  static forRoot(options: Partial<ScheduleEngineOptions> = {}): DynamicModule {
    return {
      module: ScheduleRunnerModule,
      imports: [SchedulesServicesModule, RunProfileLaunchModule],
      providers: [...SCHEDULE_RUNNER_PROVIDERS, { provide: SCHEDULE_ENGINE_OPTIONS, useValue: scheduleEngineOptions(options) }],
      exports: SCHEDULE_RUNNER_PROVIDERS,
    };
  }
}
