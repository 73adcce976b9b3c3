import { Module } from '@nestjs/common';
import { SyncRulesServicesModule } from '@meridian/application';
import { AttributePrioritiesController } from './attribute-priorities.controller';
import { ExpressionsController } from './expressions.controller';
import { MatchingRulesController } from './matching-rules.controller';
import { SyncRuleMappingsController } from './sync-rule-mappings.controller';
import { SyncRulesController } from './sync-rules.controller';

@Module({
  imports: [SyncRulesServicesModule],
  controllers: [
    SyncRulesController,
    SyncRuleMappingsController,
    MatchingRulesController,
    AttributePrioritiesController,
    ExpressionsController,
  ],
})
export class SyncRulesModule {}
