import type { Provider } from '@nestjs/common';
import { ExecutionAdvancer } from './engine/execution-advancer';
import { ExecutionClaimer } from './engine/execution-claimer';
import { LocalStepTasks } from './engine/local-step-tasks';
import { SchedulerReplica } from './engine/scheduler-replica';
import { StepLauncher } from './engine/step-launcher';
import { StepSettler } from './engine/step-settler';
import { StepWatcher } from './engine/step-watcher';
import { ScheduleClock } from './schedule-clock';
import { ScheduleExecutionRunner } from './schedule-execution.runner';
import { ScheduleExecutionsService } from './schedule-executions.service';
import { SchedulesService } from './schedules.service';
import { StepSecrets } from './step-secrets';

/** Services of this area, registered by SchedulesServicesModule. */
export const SCHEDULES_PROVIDERS: Provider[] = [ScheduleClock, ScheduleExecutionsService, SchedulesService];

/** The execution runner and its parts, registered by ScheduleRunnerModule. */
export const SCHEDULE_RUNNER_PROVIDERS: Provider[] = [
  ScheduleExecutionRunner,
  SchedulerReplica,
  ExecutionClaimer,
  StepWatcher,
  ExecutionAdvancer,
  StepLauncher,
  LocalStepTasks,
  StepSettler,
  StepSecrets,
];
