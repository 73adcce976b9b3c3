import { Module } from '@nestjs/common';
import { ScheduleExecutionsController } from './schedule-executions.controller';
import { ScheduleRunController } from './schedule-run.controller';

@Module({ controllers: [ScheduleExecutionsController, ScheduleRunController] })
export class ScheduleExecutionsModule {}
