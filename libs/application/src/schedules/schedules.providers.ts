import type { Provider } from '@nestjs/common';
import { ScheduleClock } from './schedule-clock';
import { ScheduleExecutionRunner } from './schedule-execution.runner';
import { ScheduleExecutionsService } from './schedule-executions.service';
import { SchedulesService } from './schedules.service';
import { StepSecrets } from './step-secrets';

/** Services of this area, registered by SchedulesServicesModule. */
export const SCHEDULES_PROVIDERS: Provider[] = [ScheduleClock, ScheduleExecutionsService, SchedulesService];

/** The execution runner and what its steps need, registered by ScheduleRunnerModule. */
export const SCHEDULE_RUNNER_PROVIDERS: Provider[] = [ScheduleExecutionRunner, StepSecrets];
