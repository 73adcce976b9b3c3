/** The built-in role that unlocks every administrative endpoint (spec §5). */
export const ADMINISTRATOR_ROLE = 'Administrator';

/** Roles Meridian knows; API keys and metaverse role memberships use these names. */
export const KNOWN_ROLES: readonly string[] = [ADMINISTRATOR_ROLE];

/** Returns the canonical spelling of a known role name, or undefined. */
export function canonicalRole(name: string): string | undefined {
  return KNOWN_ROLES.find((r) => r.toLowerCase() === name.trim().toLowerCase());
}
