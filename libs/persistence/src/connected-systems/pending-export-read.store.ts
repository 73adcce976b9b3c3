import { PendingExportStatus } from '@meridian/domain';
import type { StoredAttributeChange } from '../entities/engine.entity';
import type { BoundedCount, PageWindow } from '../sql/bounded-count';
import { boundedCount } from '../sql/bounded-count';
import type { SqlRunner } from '../sql/sql-runner';

/** A pending export with the identity of its object, as the API lists it. */
export interface PendingExportReadRow {
  id: string;
  connectedSystemObjectId: string;
  externalId: string | null;
  displayName: string | null;
  changeType: string;
  status: string;
  attributeChanges: StoredAttributeChange[] | null;
  errorCount: number;
  confirmationAttempts: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  created: Date;
  lastUpdated: Date | null;
}

const COLUMNS = `pe.id, pe.connected_system_object_id AS "connectedSystemObjectId", c.external_id AS "externalId", c.display_name AS "displayName",
  pe.change_type AS "changeType", pe.status, pe.attribute_changes AS "attributeChanges", pe.error_count AS "errorCount",
  pe.confirmation_attempts AS "confirmationAttempts", pe.next_attempt_at AS "nextAttemptAt", pe.last_error AS "lastError", pe.created,
  pe.last_updated AS "lastUpdated"`;
const FROM = 'pending_export pe JOIN connected_system_object c ON c.id = pe.connected_system_object_id';

/** Reads the staged changes of a connected system for the API (DOMAIN.md §2.3). */
export class PendingExportReadStore {
  constructor(private readonly db: SqlRunner) {}

  /** One page in id order: with or without a status, a walk of (connected_system_id, status, id) per status, merged. */
  async page(
    systemId: number,
    filters: { status: string | null; changeType: string | null },
    paging: PageWindow,
  ): Promise<{ rows: PendingExportReadRow[] } & BoundedCount> {
    const statuses = filters.status ? [filters.status] : Object.values(PendingExportStatus);
    const params: unknown[] = [systemId];
    const typeFilter = filters.changeType ? `AND pe.change_type = $${params.push(filters.changeType)}` : '';
    const walk = (s: number) => `SELECT pe.id FROM pending_export pe
       WHERE pe.connected_system_id = $1 AND pe.status = $${params.push(statuses[s])} ${typeFilter} ORDER BY pe.id`;
    // Without a status: one walk per status, each cut at offset + pageSize, merged — never a sort of all the system's exports.
    const idSql =
      statuses.length === 1
        ? `${walk(0)} LIMIT ${paging.pageSize} OFFSET ${paging.offset}`
        : `SELECT id FROM (${statuses.map((_, i) => `(${walk(i)} LIMIT ${paging.offset + paging.pageSize})`).join(' UNION ALL ')}) u
          ORDER BY id LIMIT ${paging.pageSize} OFFSET ${paging.offset}`;
    const rows = await this.db.query<PendingExportReadRow[]>(
      `SELECT ${COLUMNS} FROM ${FROM} JOIN (${idSql}) p ON p.id = pe.id ORDER BY pe.id`,
      params,
    );
    const countParams: unknown[] = [systemId, statuses];
    const countTypeFilter = filters.changeType ? `AND pe.change_type = $${countParams.push(filters.changeType)}` : '';
    const counted = await boundedCount(
      this.db,
      `pending_export pe WHERE pe.connected_system_id = $1 AND pe.status = ANY($2::text[]) ${countTypeFilter}`,
      countParams,
      paging,
      rows.length,
    );
    return { rows, ...counted };
  }

  /** Every pending export of one connector space object, oldest first. */
  async forObject(objectId: string): Promise<PendingExportReadRow[]> {
    return this.db.query<PendingExportReadRow[]>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE pe.connected_system_object_id = $1 ORDER BY pe.created, pe.id`,
      [objectId],
    );
  }
}
