import { ActivityStatus } from '@meridian/domain';
import type { BulkSession } from './bulk-session';

export const metaverseLockKey = 'metaverse';
export const connectedSystemLockKey = (id: number) => `connected-system:${id}`;

export interface LockHolder {
  lockKey: string;
  activityId: string;
  targetName: string | null;
  targetContext: string | null;
}

/**
 * Run locks (docs/engine.md): rows keyed by what they protect, held by an activity. Acquiring takes all
 * keys or none; a lock whose holder has finished (or was reaped) is free.
 */
export class RunLockStore {
  constructor(private readonly s: BulkSession) {}

  /** Takes every key for the activity, or none of them; returns the holders that stood in the way. */
  async acquire(activityId: string, keys: readonly string[]): Promise<{ acquired: boolean; holders: LockHolder[] }> {
    return this.s.transaction(async () => {
      await this.s.count(
        `DELETE FROM run_lock l USING activity a WHERE l.lock_key = ANY($1) AND a.id = l.activity_id AND a.status <> '${ActivityStatus.InProgress}'`,
        [keys],
      );
      const taken = await this.s.rows<{ lock_key: string }>(
        `INSERT INTO run_lock (lock_key, activity_id) SELECT unnest($1::text[]), $2
         ON CONFLICT (lock_key) DO UPDATE SET acquired_at = run_lock.acquired_at WHERE run_lock.activity_id = EXCLUDED.activity_id
         RETURNING lock_key`,
        [keys, activityId],
      );
      if (taken.length === keys.length) return { acquired: true, holders: [] };
      const holders = await this.s.rows<LockHolder>(
        `SELECT l.lock_key AS "lockKey", l.activity_id AS "activityId", a.target_name AS "targetName", a.target_context AS "targetContext"
           FROM run_lock l JOIN activity a ON a.id = l.activity_id WHERE l.lock_key = ANY($1) AND l.activity_id <> $2`,
        [keys, activityId],
      );
      // Give back what this call took: all or nothing.
      await this.s.count(`DELETE FROM run_lock WHERE activity_id = $1 AND lock_key = ANY($2)`, [activityId, taken.map((t) => t.lock_key)]);
      return { acquired: false, holders };
    });
  }

  async release(activityId: string): Promise<void> {
    await this.s.count(`DELETE FROM run_lock WHERE activity_id = $1`, [activityId]);
  }
}
