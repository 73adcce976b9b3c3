import { Module } from '@nestjs/common';
import { ConnectorAccessModule } from '../connected-systems/connected-systems.module';
import { ENGINE_PROVIDERS } from './engine.providers';

/** The synchronisation engine: runners, the executor that runs them, and housekeeping. */
@Module({ imports: [ConnectorAccessModule], providers: ENGINE_PROVIDERS, exports: ENGINE_PROVIDERS })
export class EngineModule {}
