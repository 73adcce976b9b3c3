import { applyDecorators, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { ADMINISTRATOR_ROLE } from '@meridian/domain';
import { initiatorOf, Initiator } from '@meridian/application';
import { Authenticated, AuthenticatedRequest, Principal, Public, RequireRole } from '@meridian/platform';
import { ApiErrors } from './openapi';

/** An Administrator-only endpoint (spec §5.5), documented with both credential types and 401/403. */
export const AdminEndpoint = () =>
  applyDecorators(RequireRole(ADMINISTRATOR_ROLE), ApiSecurity('api-key'), ApiBearerAuth('bearer'), ApiErrors(401, 403));

/** Any authenticated caller (spec §5.4). */
export const AuthenticatedEndpoint = () =>
  applyDecorators(Authenticated(), ApiSecurity('api-key'), ApiBearerAuth('bearer'), ApiErrors(401));

/** Anonymous (spec §5.3). */
export const PublicEndpoint = () => applyDecorators(Public());

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Principal | undefined => ctx.switchToHttp().getRequest<AuthenticatedRequest>().user,
);

/** The caller as an activity initiator. */
export const CurrentInitiator = createParamDecorator((_: unknown, ctx: ExecutionContext): Initiator =>
  initiatorOf(ctx.switchToHttp().getRequest<AuthenticatedRequest>().user),
);
