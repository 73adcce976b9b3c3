import type { Provider } from '@nestjs/common';
import { AttributePrioritiesService } from './attribute-priorities.service';
import { ExpressionTesterService } from './expression-tester.service';
import { MappingExpressions } from './mapping-expressions';
import { MatchingRulesService } from './matching-rules.service';
import { SyncRuleMappingsService } from './sync-rule-mappings.service';
import { SyncRulesService } from './sync-rules.service';

/** Services of this area, registered by the area module. */
export const SYNC_RULES_PROVIDERS: Provider[] = [
  MappingExpressions,
  SyncRulesService,
  SyncRuleMappingsService,
  MatchingRulesService,
  AttributePrioritiesService,
  ExpressionTesterService,
];
