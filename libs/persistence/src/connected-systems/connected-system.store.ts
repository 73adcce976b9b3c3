import { ActivityOperationType, ActivityStatus, ActivityTargetType } from '@meridian/domain';
import type { SqlRunner } from '../sql/sql-runner';

/** Object types, connector space objects and run profiles of one connected system. */
export interface ConnectedSystemCountsRow {
  objectTypeCount: number;
  objectCount: number;
  runProfileCount: number;
}

/** An attribute's selection and identifier flags as an object-type update sets them. */
export interface AttributeFlags {
  id: number;
  selected: boolean;
  isExternalId: boolean;
  isSecondaryExternalId: boolean;
}

/** A connected-system attribute's name and type, by id. */
export interface AttributeMeta {
  id: number;
  name: string;
  type: string;
}

/** What the connected-system services read and write beyond their entities' repositories. */
export class ConnectedSystemStore {
  constructor(private readonly db: SqlRunner) {}

  /** The InProgress deletion activity of a system queued for deletion, if any. */
  async deletionActivityId(systemId: number): Promise<string | null> {
    const rows = await this.db.query<Array<{ id: string }>>(
      `SELECT id FROM activity WHERE connected_system_id = $1 AND target_type = $2 AND target_operation_type = $3 AND status = $4 ORDER BY created LIMIT 1`,
      [systemId, ActivityTargetType.ConnectedSystem, ActivityOperationType.Delete, ActivityStatus.InProgress],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * Run-profile activities of the system still in progress. One whose worker stopped heart-beating (or
   * that no worker picked up) for longer than `staleMs` is not counted: the reaper owns it.
   */
  async activeRunActivityIds(systemId: number, staleMs: number): Promise<string[]> {
    const rows = await this.db.query<Array<{ id: string }>>(
      `SELECT id FROM activity
        WHERE connected_system_id = $1 AND target_type = $2 AND status = $3
          AND coalesce(heartbeat_at, created) > now() - ($4::bigint * interval '1 millisecond')
        ORDER BY created`,
      [systemId, ActivityTargetType.ConnectedSystemRunProfile, ActivityStatus.InProgress, staleMs],
    );
    return rows.map((r) => r.id);
  }

  /** The in-progress run of a run profile, if any. */
  async runningActivityOfProfile(runProfileId: number): Promise<string | null> {
    const rows = await this.db.query<Array<{ id: string }>>(
      `SELECT id FROM activity WHERE connected_system_run_profile_id = $1 AND target_type = $2 AND status = $3 AND target_operation_type = $4 LIMIT 1`,
      [runProfileId, ActivityTargetType.ConnectedSystemRunProfile, ActivityStatus.InProgress, ActivityOperationType.Execute],
    );
    return rows[0]?.id ?? null;
  }

  /** Object types, connector space objects and run profiles per system, in three grouped statements. */
  async counts(ids: readonly number[]): Promise<Map<number, ConnectedSystemCountsRow>> {
    const out = new Map<number, ConnectedSystemCountsRow>(
      ids.map((id) => [id, { objectTypeCount: 0, objectCount: 0, runProfileCount: 0 }]),
    );
    if (!ids.length) return out;
    const tables: Array<[keyof ConnectedSystemCountsRow, string]> = [
      ['objectTypeCount', 'connected_system_object_type'],
      ['objectCount', 'connected_system_object'],
      ['runProfileCount', 'connected_system_run_profile'],
    ];
    for (const [field, table] of tables) {
      const rows = await this.db.query<Array<{ id: number; count: number }>>(
        `SELECT connected_system_id AS id, count(*)::int AS count FROM ${table} WHERE connected_system_id = ANY($1::int[]) GROUP BY connected_system_id`,
        [ids],
      );
      for (const r of rows) out.get(r.id)![field] = r.count;
    }
    return out;
  }

  /** The id of another system with this name, ignoring case. */
  async systemNamedLike(name: string, exceptId: number | null): Promise<number | null> {
    const rows = await this.db.query<Array<{ id: number }>>(
      `SELECT id FROM connected_system WHERE lower(name) = lower($1) AND id <> coalesce($2::int, 0)`,
      [name, exceptId],
    );
    return rows[0]?.id ?? null;
  }

  /** The id of another run profile of the system with this name, ignoring case. */
  async runProfileNamedLike(systemId: number, name: string, exceptId: number | null): Promise<number | null> {
    const rows = await this.db.query<Array<{ id: number }>>(
      `SELECT id FROM connected_system_run_profile WHERE connected_system_id = $1 AND lower(name) = lower($2) AND id <> coalesce($3::int, 0)`,
      [systemId, name, exceptId],
    );
    return rows[0]?.id ?? null;
  }

  /** Sets the selection and identifier flags of attributes of one object type, in one statement. */
  async setAttributeFlags(objectTypeId: number, changed: readonly AttributeFlags[]): Promise<void> {
    if (!changed.length) return;
    await this.db.query(
      `UPDATE connected_system_attribute a SET selected = v.selected, is_external_id = v.is_external_id, is_secondary_external_id = v.is_secondary_external_id
         FROM unnest($1::int[], $2::boolean[], $3::boolean[], $4::boolean[]) AS v(id, selected, is_external_id, is_secondary_external_id)
        WHERE a.id = v.id AND a.object_type_id = $5`,
      [
        changed.map((c) => c.id),
        changed.map((c) => c.selected),
        changed.map((c) => c.isExternalId),
        changed.map((c) => c.isSecondaryExternalId),
        objectTypeId,
      ],
    );
  }

  /** Names and types of connected-system attributes by id (only the ids asked for). */
  async attributeMeta(ids: Iterable<number>): Promise<Map<number, AttributeMeta>> {
    const wanted = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647);
    if (!wanted.length) return new Map();
    const rows = await this.db.query<AttributeMeta[]>(`SELECT id, name, type FROM connected_system_attribute WHERE id = ANY($1::int[])`, [
      wanted,
    ]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Whether an object type belongs to the system. */
  async hasObjectType(systemId: number, objectTypeId: number): Promise<boolean> {
    const rows = await this.db.query<unknown[]>(`SELECT 1 FROM connected_system_object_type WHERE id = $1 AND connected_system_id = $2`, [
      objectTypeId,
      systemId,
    ]);
    return rows.length > 0;
  }
}
