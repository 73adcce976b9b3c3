export * from './history-cleanup.store';
