import { DeletionTriggerMode } from '../metaverse/deletion-rule';
import { DeletionRule, MetaverseObjectOrigin } from '../metaverse/metaverse-types';
import type { MetaverseTypeDef } from './sync-model';

export type DeletionDecision =
  | { action: 'None' }
  /** Delete the metaverse object in this run (no grace period). */
  | { action: 'Delete' }
  /** A pending deletion: deleted by housekeeping once `eligible` has passed. */
  | { action: 'Pending'; eligible: Date };

export interface DeletionInput {
  type: MetaverseTypeDef;
  origin: string;
  /** Systems the object is still joined to after this run's disconnections. */
  remainingSystemIds: readonly number[];
  /** Systems that disconnected from the object in this run. */
  disconnectedSystemIds: readonly number[];
  now: Date;
}

/**
 * The deletion rule of a metaverse object that lost a connector (DOMAIN.md §2.4): `Internal` objects and
 * `Manual` types are never deleted automatically; `WhenLastConnectorDisconnected` when nothing is joined
 * any more; `WhenAuthoritativeSourceDisconnected` when any (or all) of the listed systems are gone.
 */
export function decideDeletion(input: DeletionInput): DeletionDecision {
  const { type } = input;
  if (input.origin === MetaverseObjectOrigin.Internal || !input.disconnectedSystemIds.length) return { action: 'None' };
  let triggered = false;
  switch (type.deletionRule) {
    case DeletionRule.WhenLastConnectorDisconnected:
      triggered = input.remainingSystemIds.length === 0;
      break;
    case DeletionRule.WhenAuthoritativeSourceDisconnected: {
      const triggers = type.deletionTriggerConnectedSystemIds;
      if (!triggers.length) break;
      const gone = triggers.filter((id) => !input.remainingSystemIds.includes(id));
      triggered =
        type.deletionTriggerMode === DeletionTriggerMode.All
          ? gone.length === triggers.length && input.disconnectedSystemIds.some((id) => triggers.includes(id))
          : input.disconnectedSystemIds.some((id) => triggers.includes(id));
      break;
    }
    default:
      triggered = false;
  }
  if (!triggered) return { action: 'None' };
  if (!type.deletionGracePeriodSeconds) return { action: 'Delete' };
  return { action: 'Pending', eligible: new Date(input.now.getTime() + type.deletionGracePeriodSeconds * 1000) };
}
