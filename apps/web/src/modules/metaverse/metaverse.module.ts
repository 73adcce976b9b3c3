import { Module } from '@nestjs/common';
import { MetaverseObjectsController } from './metaverse-objects.controller';

@Module({ controllers: [MetaverseObjectsController] })
export class MetaverseModule {}
