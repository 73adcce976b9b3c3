export * from './history.store';
export * from './history-cleanup.store';
