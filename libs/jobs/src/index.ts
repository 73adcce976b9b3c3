export * from './job-names';
export * from './job-options';
export * from './redis-connection';
export * from './job-queue.service';
export * from './jobs.module';
