import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import { DomainError, ErrorCode } from '@meridian/domain';
import type { Request } from 'express';
import { ACCESS_KEY, RouteAccess } from './access.decorators';
import { OidcTokenVerifier } from './oidc-token.verifier';
import { hasRole, Principal, PrincipalResolver } from './principal';

export type AuthenticatedRequest = Request & { user?: Principal };

const ApiKeyPassportGuard = PassportAuthGuard('api-key');

/**
 * The global guard: deny by default. A route must be declared @Public(), @Authenticated() or
 * @RequireRole(); an undeclared route is refused. Credentials: `X-Api-Key` (passport) or an OIDC
 * bearer token.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly apiKeyGuard = new ApiKeyPassportGuard();

  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: OidcTokenVerifier,
    private readonly resolver: PrincipalResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]);
    if (access?.kind === 'public') return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    await this.authenticate(context, req);
    if (!access) throw new DomainError(ErrorCode.Forbidden, 'This endpoint has no access rule and is closed.');
    if (access.kind === 'role' && !hasRole(req.user, access.role)) {
      throw new DomainError(
        ErrorCode.Forbidden,
        req.user?.authorised === false
          ? 'No identity in Meridian matches your sign-in, so administrative endpoints are refused.'
          : `The ${access.role} role is required.`,
      );
    }
    return true;
  }

  private async authenticate(context: ExecutionContext, req: AuthenticatedRequest): Promise<void> {
    if (req.headers['x-api-key'] !== undefined) {
      await this.apiKeyGuard.canActivate(context);
      if (!req.user) throw new DomainError(ErrorCode.Unauthorised, 'The API key is not valid.');
      return;
    }
    const header = req.headers.authorization;
    if (header) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw new DomainError(ErrorCode.Unauthorised, 'The Authorization header must be "Bearer <access token>".');
      const claims = await this.verifier.verify(match[1]);
      req.user = await this.resolver.resolveTokenSubject(this.verifier.subjectOf(claims), claims);
      return;
    }
    throw new DomainError(ErrorCode.Unauthorised, 'Authentication required: send an X-Api-Key header or an Authorization: Bearer token.');
  }
}
