export * from './connector.contract';
export * from './export-batch';
export * from './connector-settings';
export * from './connector-registry';
export * from './builtin-connectors';
export * from './file';
