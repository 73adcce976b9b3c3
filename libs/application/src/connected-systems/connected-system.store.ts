import { ActivityOperationType, ActivityStatus, ActivityTargetType, DomainError } from '@meridian/domain';
import { ActivityEntity, ConnectedSystemEntity } from '@meridian/persistence';
import { EntityManager } from 'typeorm';
import { ActivitiesService, ConfigChange } from '../activities/activities.service';
import { ConnectedSystemCounts } from './connected-system.views';

/**
 * Loads a connected system (404 when absent). `share` serialises with a deletion request, which
 * takes `update`: a run or a configuration change either commits before the deletion sees it or
 * sees the deletion.
 */
export async function findSystem(m: EntityManager, id: number, lock?: 'share' | 'update'): Promise<ConnectedSystemEntity> {
  const qb = m.getRepository(ConnectedSystemEntity).createQueryBuilder('s').where('s.id = :id', { id });
  if (lock === 'share') qb.setLock('pessimistic_read');
  if (lock === 'update') qb.setLock('pessimistic_write');
  const system = await qb.getOne();
  if (!system) throw DomainError.notFound('Connected system', id);
  return system;
}

/** The InProgress deletion activity of a system queued for deletion, if any. */
export async function deletionActivityId(m: EntityManager, systemId: number): Promise<string | null> {
  const rows: Array<{ id: string }> = await m.query(
    `SELECT id FROM activity WHERE connected_system_id = $1 AND target_type = $2 AND target_operation_type = $3 AND status = $4 ORDER BY created LIMIT 1`,
    [systemId, ActivityTargetType.ConnectedSystem, ActivityOperationType.Delete, ActivityStatus.InProgress],
  );
  return rows[0]?.id ?? null;
}

/** Refuses changes to a system that is queued for deletion (409). */
export async function assertNotBeingDeleted(m: EntityManager, system: ConnectedSystemEntity): Promise<void> {
  const activityId = await deletionActivityId(m, system.id);
  if (activityId) {
    throw DomainError.conflict(
      `Connected system "${system.name}" is being deleted (activity ${activityId}); it can no longer be changed or run.`,
      { activityId },
    );
  }
}

/**
 * A system for a change: locked against a concurrent deletion request, and not being deleted.
 * Changes that write the system row take `update` (taking `share` and then writing could deadlock
 * two concurrent changes); ones that only read it, such as starting a run, take `share`.
 */
export async function findSystemForChange(
  m: EntityManager,
  id: number,
  lock: 'share' | 'update' = 'update',
): Promise<ConnectedSystemEntity> {
  const system = await findSystem(m, id, lock);
  await assertNotBeingDeleted(m, system);
  return system;
}

/**
 * Run-profile activities of the system still in progress. One whose worker stopped heart-beating
 * (or that no worker picked up) for longer than `staleMs` is not counted: the reaper owns it.
 */
export async function activeRunActivityIds(m: EntityManager, systemId: number, staleMs: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await m.query(
    `SELECT id FROM activity
      WHERE connected_system_id = $1 AND target_type = $2 AND status = $3
        AND coalesce(heartbeat_at, created) > now() - ($4::bigint * interval '1 millisecond')
      ORDER BY created`,
    [systemId, ActivityTargetType.ConnectedSystemRunProfile, ActivityStatus.InProgress, staleMs],
  );
  return rows.map((r) => r.id);
}

/** Object types, connector space objects and run profiles per system, in three grouped statements. */
export async function systemCounts(m: EntityManager, ids: number[]): Promise<Map<number, ConnectedSystemCounts>> {
  const out = new Map<number, ConnectedSystemCounts>(ids.map((id) => [id, { objectTypeCount: 0, objectCount: 0, runProfileCount: 0 }]));
  if (!ids.length) return out;
  const queries: Array<[keyof ConnectedSystemCounts, string]> = [
    ['objectTypeCount', 'connected_system_object_type'],
    ['objectCount', 'connected_system_object'],
    ['runProfileCount', 'connected_system_run_profile'],
  ];
  for (const [field, table] of queries) {
    const rows: Array<{ id: number; count: number }> = await m.query(
      `SELECT connected_system_id AS id, count(*)::int AS count FROM ${table} WHERE connected_system_id = ANY($1::int[]) GROUP BY connected_system_id`,
      [ids],
    );
    for (const r of rows) out.get(r.id)![field] = r.count;
  }
  return out;
}

/** Records a configuration change of (something under) a connected system, linked to the system. */
export async function recordSystemChange(
  activities: ActivitiesService,
  m: EntityManager,
  change: ConfigChange,
  links: { connectedSystemId: number; connectedSystemRunProfileId?: number | null },
): Promise<ActivityEntity> {
  const activity = await activities.recordChange(change, m);
  await m.getRepository(ActivityEntity).update(
    { id: activity.id },
    {
      connectedSystemId: links.connectedSystemId,
      connectedSystemRunProfileId: links.connectedSystemRunProfileId ?? null,
    },
  );
  return activity;
}

/** True for a PostgreSQL unique violation (a concurrent insert won the race for a name). */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = e as { code?: string; driverError?: { code?: string; constraint?: string }; constraint?: string };
  const code = err?.driverError?.code ?? err?.code;
  const name = err?.driverError?.constraint ?? err?.constraint;
  return code === '23505' && (!constraint || name === constraint);
}
