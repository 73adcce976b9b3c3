import { randomUUID } from 'node:crypto';
import { uuidV7At } from '@meridian/persistence';
import type { Client } from 'pg';

export interface SeedActivity {
  created: Date;
  status?: string;
  parentActivityId?: string | null;
  targetType?: string;
  /** Execution items to give it. */
  items?: number;
}

/** Change records and activities at chosen times, written with SQL, for history and retention tests. */
export class HistorySeed {
  constructor(private readonly pg: Client) {}

  /** Connected system object change records, one per time; answers their ids in the same order. */
  async csoChanges(times: readonly Date[], options: { systemId?: number; activityId?: string | null } = {}): Promise<string[]> {
    const ids = times.map((t) => uuidV7At(t.getTime()));
    await this.pg.query(
      `INSERT INTO connected_system_object_change (id, change_time, connected_system_id, connected_system_object_id, object_type_id, external_id, display_name,
                                                   change_type, attribute_changes, activity_id, initiated_by_type, initiated_by_name)
       SELECT t.id, t.at, $3, gen_random_uuid(), 1, 'E' || t.n, 'Person ' || t.n, 'Updated', '[{"a": 1, "o": ["x"], "n": ["y"]}]', $4, 'System', 'System'
         FROM unnest($1::uuid[], $2::timestamptz[]) WITH ORDINALITY AS t(id, at, n)`,
      [ids, times, options.systemId ?? 1, options.activityId ?? null],
    );
    return ids;
  }

  /** Metaverse object change records, one per time; answers their ids in the same order. */
  async mvoChanges(times: readonly Date[], options: { activityId?: string | null } = {}): Promise<string[]> {
    const ids = times.map((t) => uuidV7At(t.getTime()));
    await this.pg.query(
      `INSERT INTO metaverse_object_change (id, change_time, metaverse_object_id, object_type_id, display_name, change_type, attribute_changes,
                                            activity_id, initiated_by_type, initiated_by_name)
       SELECT t.id, t.at, gen_random_uuid(), 1, 'Person ' || t.n, 'AttributeFlow', '[{"a": 2, "o": [], "n": ["Sales"], "s": 1}]', $3, 'System', 'System'
         FROM unnest($1::uuid[], $2::timestamptz[]) WITH ORDINALITY AS t(id, at, n)`,
      [ids, times, options.activityId ?? null],
    );
    return ids;
  }

  /** An activity (Complete unless told) created at the given time, with `items` execution items. */
  async activity(a: SeedActivity): Promise<string> {
    const id = randomUUID();
    await this.pg.query(
      `INSERT INTO activity (id, parent_activity_id, created, executed, completed, status, target_type, target_operation_type, target_name, initiated_by_type)
       VALUES ($1, $2, $3::timestamptz, $3::timestamptz, CASE WHEN $4::text = 'InProgress' THEN NULL ELSE $3::timestamptz END, $4::text, $5, 'Execute', 'Seeded', 'System')`,
      [id, a.parentActivityId ?? null, a.created, a.status ?? 'Complete', a.targetType ?? 'ConnectedSystemRunProfile'],
    );
    if (a.items) {
      await this.pg.query(
        `INSERT INTO activity_execution_item (activity_id, external_id_value, object_change_type, created)
         SELECT $1, 'E' || g, 'Update', $3 FROM generate_series(1, $2::int) g`,
        [id, a.items, a.created],
      );
    }
    return id;
  }

  async count(
    table: 'connected_system_object_change' | 'metaverse_object_change' | 'activity_execution_item' | 'activity',
  ): Promise<number> {
    return Number((await this.pg.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
  }
}
