import { Module } from '@nestjs/common';
import { ServiceSettingsController } from './service-settings.controller';

@Module({ controllers: [ServiceSettingsController] })
export class ServiceSettingsModule {}
