export * from './connected-system.store';
export * from './connected-system-deletion.store';
export * from './connector-space-read.store';
export * from './pending-export-read.store';
