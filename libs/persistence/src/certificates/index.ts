export * from './certificate.store';
