export * from './connected-systems.providers';
