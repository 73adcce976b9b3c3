import { DomainError } from '@meridian/domain';
import { ActivityEntity, ConnectedSystemEntity, ConnectedSystemStore } from '@meridian/persistence';
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
  return new ConnectedSystemStore(m).deletionActivityId(systemId);
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
  return new ConnectedSystemStore(m).activeRunActivityIds(systemId, staleMs);
}

/** Object types, connector space objects and run profiles per system, in three grouped statements. */
export async function systemCounts(m: EntityManager, ids: number[]): Promise<Map<number, ConnectedSystemCounts>> {
  return new ConnectedSystemStore(m).counts(ids);
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
