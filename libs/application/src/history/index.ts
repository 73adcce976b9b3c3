export * from './history.service';
export * from './history.module';
