import type { Provider } from '@nestjs/common';
import { ConnectedSystemObjectTypesService } from './connected-system-object-types.service';
import { ConnectedSystemSchemaService } from './connected-system-schema.service';
import { ConnectedSystemsService } from './connected-systems.service';
import { ConnectorSpaceQuery } from './connector-space.query';
import { PendingExportsQuery } from './pending-exports.query';

/** Configuration services of this area (the launch, deletion and connector-access parts have modules of their own). */
export const CONNECTED_SYSTEMS_PROVIDERS: Provider[] = [
  ConnectedSystemsService,
  ConnectedSystemObjectTypesService,
  ConnectedSystemSchemaService,
  ConnectorSpaceQuery,
  PendingExportsQuery,
];
