import { InitiatedByType } from '@meridian/domain';
import type { Principal } from '@meridian/platform';

/** Who an activity is attributed to. */
export interface Initiator {
  type: InitiatedByType;
  id: string | null;
  name: string | null;
}

export const SYSTEM_INITIATOR: Initiator = { type: InitiatedByType.System, id: null, name: 'System' };

/** Width of the columns that keep an initiator's name (initiated_by_name, last_updated_by, created_by_name…). */
export const MAX_INITIATOR_NAME_LENGTH = 300;

export function initiatorOf(principal: Principal | undefined): Initiator {
  if (!principal) return SYSTEM_INITIATOR;
  // A display name or token claim can be longer than the columns; a long name must not fail the change.
  const name = principal.name.slice(0, MAX_INITIATOR_NAME_LENGTH);
  if (principal.authMethod === 'api_key') return { type: InitiatedByType.ApiKey, id: principal.apiKeyId, name };
  return { type: InitiatedByType.User, id: principal.metaverseObjectId, name };
}
