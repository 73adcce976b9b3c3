import { Module } from '@nestjs/common';
import { MetaverseServicesModule } from '@meridian/application';
import { MetaverseAttributesController } from './metaverse-attributes.controller';
import { MetaverseObjectTypesController } from './metaverse-object-types.controller';
import { MetaverseObjectsController } from './metaverse-objects.controller';
import { PendingDeletionsController } from './pending-deletions.controller';

@Module({
  imports: [MetaverseServicesModule],
  controllers: [MetaverseObjectTypesController, MetaverseAttributesController, MetaverseObjectsController, PendingDeletionsController],
})
export class MetaverseModule {}
