export * from './copy-rows';
export * from './connector-space';
export * from './uuid-v7';
