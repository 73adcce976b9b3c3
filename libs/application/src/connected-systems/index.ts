export * from './connected-systems.providers';
export * from './connected-system.views';
export * from './connector-context.factory';
export * from './connected-systems.service';
export * from './connected-system-object-types.service';
export * from './connected-system-schema.service';
export * from './connected-system-deletion.service';
export * from './run-profiles.service';
