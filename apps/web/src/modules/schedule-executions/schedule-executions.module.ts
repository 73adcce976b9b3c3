import { Module } from '@nestjs/common';
import { SchedulesServicesModule } from '@meridian/application';
import { ScheduleExecutionsController } from './schedule-executions.controller';
import { ScheduleRunController } from './schedule-run.controller';

@Module({ imports: [SchedulesServicesModule], controllers: [ScheduleExecutionsController, ScheduleRunController] })
export class ScheduleExecutionsModule {}
