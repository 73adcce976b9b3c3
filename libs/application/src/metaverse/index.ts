export * from './metaverse.providers';
export * from './metaverse-objects.writer';
