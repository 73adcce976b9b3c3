import { Module } from '@nestjs/common';
import { METAVERSE_PROVIDERS } from './metaverse.providers';

/** The metaverse schema, its objects and pending deletions. */
@Module({ providers: METAVERSE_PROVIDERS, exports: METAVERSE_PROVIDERS })
export class MetaverseServicesModule {}
