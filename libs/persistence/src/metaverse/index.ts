export * from './metaverse-lookup.store';
export * from './metaverse-schema.store';
export * from './metaverse-object.store';
export * from './pending-deletion.store';
