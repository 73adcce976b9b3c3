export * from './history.store';
