export * from './history.service';
export * from './history.module';
export * from './history-cleanup.service';
export * from './history-cleanup.module';
