export * from './test-database';
export * from './test-env';
export * from './hr-csv';
