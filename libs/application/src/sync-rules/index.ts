export * from './sync-rules.providers';
export * from './sync-rule.views';
export * from './sync-rules.service';
export * from './sync-rule-mappings.service';
export * from './matching-rules.service';
export * from './attribute-priorities.service';
export * from './expression-tester.service';
export * from './mapping-expressions';
