import { MetaverseLookupStore } from '@meridian/persistence';
import { EntityManager } from 'typeorm';

export { LOOKUP_SCHEMA_LOCK_SQL, lookupValueSql, MAX_LOOKUP_VALUE_LENGTH } from '@meridian/persistence';

/** Takes the lookup-schema lock shared for this transaction (object writers). */
export function lockLookupSchemaShared(m: EntityManager): Promise<void> {
  return new MetaverseLookupStore(m).lockSchemaShared();
}

/** Takes the lookup-schema lock exclusively for this transaction (is_indexed changes). */
export function lockLookupSchemaExclusive(m: EntityManager): Promise<void> {
  return new MetaverseLookupStore(m).lockSchemaExclusive();
}

/** Rewrites the lookup rows of the given objects from their stored values. */
export function refreshObjectLookups(m: EntityManager, objectIds: readonly string[]): Promise<void> {
  return new MetaverseLookupStore(m).refreshObjects(objectIds);
}

/** Builds the lookup rows of one attribute for every object that has values for it; returns the row count. */
export function backfillAttributeLookups(m: EntityManager, attributeId: number): Promise<number> {
  return new MetaverseLookupStore(m).backfillAttribute(attributeId);
}

/** Removes every lookup row of one attribute; returns the row count. */
export function dropAttributeLookups(m: EntityManager, attributeId: number): Promise<number> {
  return new MetaverseLookupStore(m).dropAttribute(attributeId);
}
