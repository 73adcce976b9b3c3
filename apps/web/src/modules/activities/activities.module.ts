import { Module } from '@nestjs/common';
import { OperationsModule } from '@meridian/application';
import { ActivitiesController } from './activities.controller';

@Module({ imports: [OperationsModule], controllers: [ActivitiesController] })
export class ActivitiesModule {}
