export * from './sql-runner';
export * from './bounded-count';
