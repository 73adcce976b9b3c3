import type { Provider } from '@nestjs/common';
import { ConnectedSystemDeletionService } from './connected-system-deletion.service';
import { ConnectedSystemObjectTypesService } from './connected-system-object-types.service';
import { ConnectedSystemSchemaService } from './connected-system-schema.service';
import { ConnectedSystemsService } from './connected-systems.service';
import { ConnectorContextFactory } from './connector-context.factory';
import { ConnectorSpaceQuery } from './connector-space.query';
import { PendingExportsQuery } from './pending-exports.query';
import { RunProfilesService } from './run-profiles.service';

/** Services of this area, registered by the area module. */
export const CONNECTED_SYSTEMS_PROVIDERS: Provider[] = [
  ConnectorContextFactory,
  ConnectedSystemsService,
  ConnectedSystemObjectTypesService,
  ConnectedSystemSchemaService,
  ConnectedSystemDeletionService,
  RunProfilesService,
  ConnectorSpaceQuery,
  PendingExportsQuery,
];
