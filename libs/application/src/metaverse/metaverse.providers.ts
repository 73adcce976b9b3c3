import type { Provider } from '@nestjs/common';
import { MetaverseAttributesService } from './metaverse-attributes.service';
import { MetaverseObjectTypesService } from './metaverse-object-types.service';
import { MetaverseObjectsQuery } from './metaverse-objects.query';
import { MetaverseObjectsWriter } from './metaverse-objects.writer';
import { PendingDeletionsQuery } from './pending-deletions.query';

/** Services of this area, registered by the area module. */
export const METAVERSE_PROVIDERS: Provider[] = [
  MetaverseObjectTypesService,
  MetaverseAttributesService,
  MetaverseObjectsQuery,
  MetaverseObjectsWriter,
  PendingDeletionsQuery,
];
