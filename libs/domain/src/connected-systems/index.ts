export * from './connected-system.enums';
export * from './schema-diff';
export * from './attribute-selection';
