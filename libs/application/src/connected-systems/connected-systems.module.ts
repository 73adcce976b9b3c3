import { Module } from '@nestjs/common';
import { HistoryCleanupModule } from '../history/history-cleanup.module';
import { ConnectedSystemDeletionService } from './connected-system-deletion.service';
import { CONNECTED_SYSTEMS_PROVIDERS } from './connected-systems.providers';
import { ConnectorContextFactory } from './connector-context.factory';
import { RunProfilesService } from './run-profiles.service';

/** What a connector needs to run: its settings, secrets and trusted certificates. Used by the engine. */
@Module({ providers: [ConnectorContextFactory], exports: [ConnectorContextFactory] })
export class ConnectorAccessModule {}

/** Starting run profiles (an activity and its job). Used by the API and by schedule steps. */
@Module({ providers: [RunProfilesService], exports: [RunProfilesService] })
export class RunProfileLaunchModule {}

/** Deleting a connected system (and, when asked, its change history): previewed and queued by the API, carried out by a worker. */
@Module({ imports: [HistoryCleanupModule], providers: [ConnectedSystemDeletionService], exports: [ConnectedSystemDeletionService] })
export class ConnectedSystemDeletionModule {}

const PARTS = [ConnectorAccessModule, RunProfileLaunchModule, ConnectedSystemDeletionModule];

/** Connected systems as the API manages them: configuration, schema, run profiles, connector space and deletion. */
@Module({ imports: PARTS, providers: CONNECTED_SYSTEMS_PROVIDERS, exports: [...PARTS, ...CONNECTED_SYSTEMS_PROVIDERS] })
export class ConnectedSystemsServicesModule {}
