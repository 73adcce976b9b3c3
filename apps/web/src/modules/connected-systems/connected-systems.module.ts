import { Module } from '@nestjs/common';
import { ConnectedSystemObjectTypesController } from './connected-system-object-types.controller';
import { ConnectedSystemsController } from './connected-systems.controller';
import { RunProfilesController } from './run-profiles.controller';

@Module({ controllers: [ConnectedSystemsController, ConnectedSystemObjectTypesController, RunProfilesController] })
export class ConnectedSystemsModule {}
