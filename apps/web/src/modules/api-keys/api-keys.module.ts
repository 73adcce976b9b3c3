import { Module } from '@nestjs/common';
import { AccessModule } from '@meridian/application';
import { ApiKeysController } from './api-keys.controller';

@Module({ imports: [AccessModule], controllers: [ApiKeysController] })
export class ApiKeysModule {}
