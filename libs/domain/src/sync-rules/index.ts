// Pure rules of sync rules: enums, mapping kinds, scoping criteria, ordering (docs/sync-rules.md).
export * from './sync-rule.enums';
export * from './scoping-criteria';
export * from './scoping-evaluation';
export * from './ordering';
