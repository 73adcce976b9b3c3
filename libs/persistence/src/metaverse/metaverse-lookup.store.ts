import { AttributeDataType } from '@meridian/domain';
import { execute, SqlRunner } from '../sql/sql-runner';

/**
 * metaverse_object_lookup holds one row per value of every attribute with is_indexed = true:
 * (attribute, normalised value) → object. The normalisation is done in SQL, by every writer and reader
 * alike, so they can never disagree: PostgreSQL lower(), then the first MAX_LOOKUP_VALUE_LENGTH characters.
 */
export const MAX_LOOKUP_VALUE_LENGTH = 512;

/** SQL for the normalised lookup form of a text expression. */
export const lookupValueSql = (expression: string) => `left(lower(${expression}), ${MAX_LOOKUP_VALUE_LENGTH})`;

/**
 * Key of the advisory lock between object writers (shared) and an attribute's is_indexed change with its
 * backfill (exclusive): without it, an object written while an attribute is being indexed could miss its
 * lookup rows. Writers of metaverse values (the synchronisation engine included) take it shared.
 */
export const LOOKUP_SCHEMA_LOCK_SQL = `hashtext('meridian:metaverse-lookup-schema')`;

/** The lookup rows of metaverse values and the lock that keeps them complete. */
export class MetaverseLookupStore {
  constructor(private readonly db: SqlRunner) {}

  /** Takes the lookup-schema lock shared for this transaction (object writers). */
  async lockSchemaShared(): Promise<void> {
    await this.db.query(`SELECT pg_advisory_xact_lock_shared(${LOOKUP_SCHEMA_LOCK_SQL})`);
  }

  /** Takes the lookup-schema lock exclusively for this transaction (is_indexed changes). */
  async lockSchemaExclusive(): Promise<void> {
    await this.db.query(`SELECT pg_advisory_xact_lock(${LOOKUP_SCHEMA_LOCK_SQL})`);
  }

  /**
   * Rewrites the lookup rows of the given objects from their stored values: indexed attributes, and every
   * reference (so the objects referring to a deleted one are found by index).
   */
  async refreshObjects(objectIds: readonly string[]): Promise<void> {
    if (!objectIds.length) return;
    await this.db.query(`DELETE FROM metaverse_object_lookup WHERE object_id = ANY($1::uuid[])`, [objectIds]);
    await this.db.query(
      `INSERT INTO metaverse_object_lookup (attribute_id, value_normalised, object_id)
       SELECT a.id, ${lookupValueSql(`e ->> 'v'`)}, o.id
         FROM metaverse_object o
         JOIN metaverse_attribute a ON (a.is_indexed OR a.type = '${AttributeDataType.Reference}') AND o.attributes ? a.id::text
        CROSS JOIN LATERAL jsonb_array_elements(o.attributes -> a.id::text) e
        WHERE o.id = ANY($1::uuid[]) AND e ->> 'v' IS NOT NULL
       ON CONFLICT DO NOTHING`,
      [objectIds],
    );
  }

  /** Builds the lookup rows of one attribute for every object that has values for it (one statement); returns the row count. */
  async backfillAttribute(attributeId: number): Promise<number> {
    const [{ count }] = await this.db.query<Array<{ count: number }>>(
      `WITH inserted AS (
         INSERT INTO metaverse_object_lookup (attribute_id, value_normalised, object_id)
         SELECT $1, ${lookupValueSql(`e ->> 'v'`)}, o.id
           FROM metaverse_object o
          CROSS JOIN LATERAL jsonb_array_elements(o.attributes -> $2::text) e
          WHERE o.attributes ? $2::text AND e ->> 'v' IS NOT NULL
         ON CONFLICT DO NOTHING
         RETURNING 1)
       SELECT count(*)::int AS count FROM inserted`,
      [attributeId, String(attributeId)],
    );
    return count;
  }

  /** Removes every lookup row of one attribute; returns the row count. */
  async dropAttribute(attributeId: number): Promise<number> {
    return execute(this.db, `DELETE FROM metaverse_object_lookup WHERE attribute_id = $1`, [attributeId]);
  }
}
