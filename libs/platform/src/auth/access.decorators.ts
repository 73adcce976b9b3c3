import { SetMetadata } from '@nestjs/common';

export const ACCESS_KEY = 'meridian:access';

export type RouteAccess = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'role'; role: string };

/** Anonymous endpoint (spec §5.3): health probes, version, auth config. */
export const Public = () => SetMetadata(ACCESS_KEY, { kind: 'public' } satisfies RouteAccess);

/** Any authenticated caller, whatever its roles (spec §5.4: userinfo). */
export const Authenticated = () => SetMetadata(ACCESS_KEY, { kind: 'authenticated' } satisfies RouteAccess);

/** Requires a role (spec §5.5: Administrator for every admin endpoint). */
export const RequireRole = (role: string) => SetMetadata(ACCESS_KEY, { kind: 'role', role } satisfies RouteAccess);
