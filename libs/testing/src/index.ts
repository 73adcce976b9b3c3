export * from './test-database';
export * from './test-env';
export * from './hr-csv';
export * from './api-requests';
export * from './process-alive';
export * from './error-body';
export * from './history-seed';
export * from './openapi-validator';
