import { uuidV7Sql } from '../bulk/uuid-v7';
import { ChangeOrigin, CSO_CHANGE_COLUMNS } from './change-record.store';

/** The parameters of a change origin, in CHANGE_ORIGIN_COLUMNS order (see insertCsoChangesSql). */
export const changeOriginParams = (o: ChangeOrigin): unknown[] => [
  o.activityId,
  o.runProfileId,
  o.initiatedByType,
  o.initiatedById,
  o.initiatedByName,
];

/** SQL expressions of the source rows for one connector space object change each (see insertCsoChangesSql). */
export interface CsoChangeSelect {
  connectedSystemId: string;
  objectId: string;
  objectTypeId: string;
  externalId: string;
  displayName: string;
  /** An SQL expression: a quoted CsoChangeType, or a CASE choosing one. */
  changeType: string;
  /** jsonb of StoredAttributeDelta[] (e.g. meridian_attribute_delta(old, new)); NULL when absent. */
  attributeChanges?: string;
  objectTypeName?: string;
  connectedSystemName?: string;
}

/**
 * INSERT of one connector space object change per row of `from` (a CTE of a writing statement, so the
 * records are written by the statement that makes the changes, in its transaction). `origin` is the
 * number of the first of the five parameters changeOriginParams gives. All records of a statement carry
 * its start time.
 */
export function insertCsoChangesSql(from: string, s: CsoChangeSelect, origin: number): string {
  const at = 'statement_timestamp()';
  const o = (k: number) => `$${origin + k}`;
  return `INSERT INTO connected_system_object_change (${CSO_CHANGE_COLUMNS.join(', ')})
    SELECT ${uuidV7Sql(at)}, ${at}, ${s.connectedSystemId}, ${s.objectId}, ${s.objectTypeId}, ${s.externalId}, ${s.displayName},
           ${s.changeType}, ${s.attributeChanges ?? 'NULL'}, ${o(0)}::uuid, ${o(1)}::int, ${o(2)}::text, ${o(3)}::uuid, ${o(4)}::text,
           ${s.objectTypeName ?? 'NULL'}, ${s.connectedSystemName ?? 'NULL'}
      FROM ${from}`;
}

/** A value as an SQL string literal (for enum values; never for input). */
export const sqlLiteral = (value: string): string => `'${value.replace(/'/g, "''")}'`;
