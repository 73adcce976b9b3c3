export * from './history-cleanup.service';
export * from './history-cleanup.module';
