export * from './bulk-session';
export * from './run.store';
export * from './run-lock.store';
export * from './execution-item.store';
export * from './sync.store';
export * from './import.store';
export * from './export.store';
export * from './statistics.store';
