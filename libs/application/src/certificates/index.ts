export * from './certificates.providers';
