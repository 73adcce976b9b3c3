export * from './sync-rule.store';
export * from './sync-rule-schema.store';
export * from './sync-rule-mapping.store';
export * from './matching-rule.store';
export * from './attribute-priority.store';
