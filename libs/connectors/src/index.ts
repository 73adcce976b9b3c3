export * from './connector.contract';
export * from './connector-settings';
export * from './connector-registry';
export * from './builtin-connectors';
export * from './file';
