export * from './sync-rules.providers';
