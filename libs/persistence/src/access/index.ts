export * from './role.store';
export * from './api-key.store';
