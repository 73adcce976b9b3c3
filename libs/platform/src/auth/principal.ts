/** The authenticated caller of a request. */
export interface Principal {
  authMethod: 'api_key' | 'oauth';
  /** Display name: the API key's name or the metaverse user's display name (or token subject). */
  name: string;
  /** True when the caller has an identity in the service (spec 2.3). API keys always do. */
  authorised: boolean;
  roles: string[];
  metaverseObjectId: string | null;
  apiKeyId: string | null;
  subject: string | null;
}

/** Resolves credentials to principals; implemented by the application layer (it needs the database). */
export abstract class PrincipalResolver {
  /** Returns the principal of a valid, enabled, unexpired key; throws DomainError UNAUTHORISED otherwise. */
  abstract resolveApiKey(secret: string): Promise<Principal>;
  /** Maps verified token claims to a principal (unknown subjects are authenticated but not authorised). */
  abstract resolveTokenSubject(subject: string, claims: Record<string, unknown>): Promise<Principal>;
}

export function hasRole(principal: Principal | undefined, role: string): boolean {
  return !!principal && principal.authorised && principal.roles.some((r) => r.toLowerCase() === role.toLowerCase());
}
