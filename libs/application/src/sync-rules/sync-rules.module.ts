import { Module } from '@nestjs/common';
import { SYNC_RULES_PROVIDERS } from './sync-rules.providers';

/** Sync rules, their mappings, matching rules, attribute priorities and the expression tester. */
@Module({ providers: SYNC_RULES_PROVIDERS, exports: SYNC_RULES_PROVIDERS })
export class SyncRulesServicesModule {}
