import { Module } from '@nestjs/common';
import { ConnectedSystemsServicesModule } from '@meridian/application';
import { ConnectedSystemObjectTypesController } from './connected-system-object-types.controller';
import { ConnectedSystemsController } from './connected-systems.controller';
import { ConnectorSpaceController } from './connector-space.controller';
import { RunProfilesController } from './run-profiles.controller';

@Module({
  imports: [ConnectedSystemsServicesModule],
  controllers: [ConnectedSystemsController, ConnectedSystemObjectTypesController, RunProfilesController, ConnectorSpaceController],
})
export class ConnectedSystemsModule {}
