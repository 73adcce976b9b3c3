import { InitiatedByType } from '@meridian/domain';
import type { Principal } from '@meridian/platform';

/** Who an activity is attributed to. */
export interface Initiator {
  type: InitiatedByType;
  id: string | null;
  name: string | null;
}

export const SYSTEM_INITIATOR: Initiator = { type: InitiatedByType.System, id: null, name: 'System' };

export function initiatorOf(principal: Principal | undefined): Initiator {
  if (!principal) return SYSTEM_INITIATOR;
  if (principal.authMethod === 'api_key') return { type: InitiatedByType.ApiKey, id: principal.apiKeyId, name: principal.name };
  return { type: InitiatedByType.User, id: principal.metaverseObjectId, name: principal.name };
}
