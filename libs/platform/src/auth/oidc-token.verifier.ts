import { Inject, Injectable } from '@nestjs/common';
import { Dependency, DependencyUnavailableError, DomainError, ErrorCode } from '@meridian/domain';
import { APP_CONFIG, AppConfig, OidcConfig } from '../config/app-config';

type JoseModule = typeof import('jose');
type OpenIdClientModule = typeof import('openid-client');

interface Discovered {
  issuer: string;
  jwks: ReturnType<JoseModule['createRemoteJWKSet']>;
}

/**
 * Validates OIDC bearer access tokens (JWT): discovery through openid-client, signature through the
 * provider's JWKS, then issuer, audience, expiry and an algorithm allow-list.
 */
@Injectable()
export class OidcTokenVerifier {
  private discovered: Promise<Discovered> | null = null;
  private readonly oidc: OidcConfig | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.oidc = config.oidc;
  }

  get enabled(): boolean {
    return this.oidc !== null;
  }

  private discover(oidc: OidcConfig): Promise<Discovered> {
    this.discovered ??= (async () => {
      const client: OpenIdClientModule = await import('openid-client');
      const jose: JoseModule = await import('jose');
      const cfg = await client.discovery(
        new URL(oidc.authority),
        oidc.clientId,
        undefined,
        undefined,
        oidc.allowInsecureHttp ? { execute: [client.allowInsecureRequests] } : undefined,
      );
      const md = cfg.serverMetadata();
      if (!md.jwks_uri) throw new Error('the OIDC provider publishes no jwks_uri');
      return { issuer: md.issuer, jwks: jose.createRemoteJWKSet(new URL(md.jwks_uri)) };
    })().catch((e: unknown) => {
      this.discovered = null; // retry discovery on the next request
      throw e;
    });
    return this.discovered;
  }

  /** Returns the verified claims or throws DomainError UNAUTHORISED / SERVICE_UNAVAILABLE. */
  async verify(token: string): Promise<Record<string, unknown>> {
    const oidc = this.oidc;
    if (!oidc) throw new DomainError(ErrorCode.Unauthorised, 'Bearer tokens are not accepted: single sign-on is not configured.');
    let discovered: Discovered;
    try {
      discovered = await this.discover(oidc);
    } catch (e) {
      throw new DependencyUnavailableError(
        Dependency.IdentityProvider,
        `The identity provider could not be reached: ${(e as Error).message}`,
      );
    }
    const jose: JoseModule = await import('jose');
    try {
      const { payload } = await jose.jwtVerify(token, discovered.jwks, {
        issuer: discovered.issuer,
        audience: oidc.audience,
        algorithms: oidc.algorithms,
        requiredClaims: ['exp', oidc.subjectClaim],
        clockTolerance: 30,
      });
      return payload as Record<string, unknown>;
    } catch (e) {
      const code = (e as { code?: string }).code;
      const reason =
        code === 'ERR_JWT_EXPIRED'
          ? 'the token has expired'
          : code === 'ERR_JWT_CLAIM_VALIDATION_FAILED'
            ? `claim check failed (${(e as { claim?: string }).claim ?? 'unknown'})`
            : code === 'ERR_JOSE_ALG_NOT_ALLOWED'
              ? 'the signing algorithm is not allowed'
              : 'the token is not valid';
      throw new DomainError(ErrorCode.Unauthorised, `Bearer token rejected: ${reason}.`);
    }
  }

  subjectOf(claims: Record<string, unknown>): string {
    const value = claims[this.oidc?.subjectClaim ?? 'sub'];
    if (typeof value !== 'string' || value === '')
      throw new DomainError(ErrorCode.Unauthorised, 'Bearer token rejected: it has no subject.');
    return value;
  }
}
