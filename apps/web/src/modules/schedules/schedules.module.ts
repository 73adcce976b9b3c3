import { Module } from '@nestjs/common';
import { SchedulesServicesModule } from '@meridian/application';
import { SchedulesController } from './schedules.controller';

@Module({ imports: [SchedulesServicesModule], controllers: [SchedulesController] })
export class SchedulesModule {}
