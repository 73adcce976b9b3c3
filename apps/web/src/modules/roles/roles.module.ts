import { Module } from '@nestjs/common';
import { AccessModule } from '@meridian/application';
import { RolesController } from './roles.controller';

@Module({ imports: [AccessModule], controllers: [RolesController] })
export class RolesModule {}
