import { Module } from '@nestjs/common';
import { OperationsModule } from '@meridian/application';
import { HealthController } from './health.controller';

@Module({ imports: [OperationsModule], controllers: [HealthController] })
export class HealthModule {}
