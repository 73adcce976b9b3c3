export * from './certificates.providers';
export * from './certificates.service';
export * from './certificate-parser';
export * from './certificates.module';
