// Public API of the metaverse area: schema enums and built-ins, value rules, query parsing, deletion rules.
export * from './metaverse-types';
export * from './attribute-values';
export * from './attribute-schema';
export * from './object-queries';
export * from './deletion-rule';
