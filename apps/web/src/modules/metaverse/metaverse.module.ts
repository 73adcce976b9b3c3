import { Module } from '@nestjs/common';
import { MetaverseAttributesController } from './metaverse-attributes.controller';
import { MetaverseObjectTypesController } from './metaverse-object-types.controller';
import { MetaverseObjectsController } from './metaverse-objects.controller';
import { PendingDeletionsController } from './pending-deletions.controller';

@Module({
  controllers: [MetaverseObjectTypesController, MetaverseAttributesController, MetaverseObjectsController, PendingDeletionsController],
})
export class MetaverseModule {}
