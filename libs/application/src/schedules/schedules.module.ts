import { Module } from '@nestjs/common';
import { ConnectedSystemsServicesModule } from '../connected-systems/connected-systems.module';
import { SCHEDULE_RUNNER_PROVIDERS, SCHEDULES_PROVIDERS } from './schedules.providers';

/** Schedules and their executions, as the API manages them. */
@Module({ providers: SCHEDULES_PROVIDERS, exports: SCHEDULES_PROVIDERS })
export class SchedulesServicesModule {}

/** Running schedule executions step by step: what the scheduler process does. */
@Module({
  imports: [SchedulesServicesModule, ConnectedSystemsServicesModule],
  providers: SCHEDULE_RUNNER_PROVIDERS,
  exports: SCHEDULE_RUNNER_PROVIDERS,
})
export class ScheduleRunnerModule {}
