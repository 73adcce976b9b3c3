export * from './metaverse.providers';
export * from './metaverse-objects.writer';
export * from './metaverse-objects.query';
export * from './pending-deletions.query';
export * from './metaverse-object-types.service';
export * from './metaverse-attributes.service';
export type { MetaverseAttributeView, MetaverseObjectTypeDetailView, MetaverseObjectTypeView } from './metaverse-schema.views';
// For other writers of metaverse values (the synchronisation engine): one lookup normalisation and lock.
export {
  lockLookupSchemaShared as lockMetaverseLookupSchemaShared,
  lookupValueSql as metaverseLookupValueSql,
  MAX_LOOKUP_VALUE_LENGTH as MAX_METAVERSE_LOOKUP_VALUE_LENGTH,
  refreshObjectLookups as refreshMetaverseObjectLookups,
} from './metaverse-lookups';
export * from './metaverse.module';
