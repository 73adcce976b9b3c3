import { Inject, Injectable } from '@nestjs/common';
import { Dependency, DependencyUnavailableError, DomainError, ErrorCode } from '@meridian/domain';
import { APP_CONFIG, AppConfig, OidcConfig } from '../config/app-config';
import { LOGGER, Logger } from '../logging/logger';
import { describeProviderFailure, JwksCache, ProviderUnreachableError, UnknownSigningKeyError } from './jwks-cache';
import { TokenRejectionLog } from './token-rejection.log';

type JoseModule = typeof import('jose');
type OpenIdClientModule = typeof import('openid-client');

/** Allowed clock skew between Meridian and the provider for `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** A token naming an unknown key refetches the key set at most this often. */
export const KEY_REFETCH_INTERVAL_MS = 5_000;
/** The key set is refreshed in the background once it is this old (the cached keys stay usable). */
export const KEY_REFRESH_AFTER_MS = 10 * 60_000;

/** Header parameters that name a key; Meridian only trusts the provider's published key set. */
const EMBEDDED_KEY_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'] as const;
/** Claims only ID tokens carry (OpenID Connect Core §2, §3.3.2.11; Keycloak's `typ: "ID"`). */
const ID_TOKEN_CLAIMS = ['nonce', 'at_hash', 'c_hash', 's_hash'] as const;

interface Discovered {
  issuer: string;
  keys: JwksCache;
}

/** A token refused for a reason worth a log line; the message never carries the token or its claims. */
class Rejection extends Error {}

/**
 * Validates OIDC bearer access tokens (JWT): discovery through openid-client, signature through the
 * provider's published key set (see JwksCache), then issuer, audience, `exp`/`nbf`/`iat`, the token type
 * (an ID token never passes as an access token) and an algorithm allow-list. docs/security.md describes
 * every check.
 */
@Injectable()
export class OidcTokenVerifier {
  private discovered: Discovered | null = null;
  private discovering: Promise<Discovered> | null = null;
  private lastDiscoveryAttemptAt = Number.NEGATIVE_INFINITY;
  private lastDiscoveryFailure: string | null = null;
  private providerDown = false;
  private readonly oidc: OidcConfig | null;
  private readonly rejections: TokenRejectionLog;
  /** Milliseconds since the epoch; replaceable so tests can move time without waiting. */
  clock: () => number = () => Date.now();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.oidc = config.oidc;
    this.rejections = new TokenRejectionLog(logger, () => this.clock());
  }

  get enabled(): boolean {
    return this.oidc !== null;
  }

  private get providerHost(): string {
    return this.oidc ? new URL(this.oidc.authority).host : '';
  }

  /** One warning when the provider stops answering, one information line when it answers again. */
  private providerAnswered(outcome: { ok: true } | { ok: false; reason: string }): void {
    if (outcome.ok) {
      if (this.providerDown) {
        this.providerDown = false;
        this.logger.log({ level: 'information', message: `The identity provider (${this.providerHost}) answers again.` });
      }
      return;
    }
    if (!this.providerDown) {
      this.providerDown = true;
      this.logger.log({
        level: 'warning',
        message: `The identity provider (${this.providerHost}) cannot be reached: ${outcome.reason}. Tokens signed with keys already fetched are still accepted.`,
        dependency: Dependency.IdentityProvider,
      });
    }
  }

  private unavailable(reason: string): DependencyUnavailableError {
    return new DependencyUnavailableError(
      Dependency.IdentityProvider,
      `The identity provider (${this.providerHost}) cannot be reached: ${reason}.`,
      KEY_REFETCH_INTERVAL_MS / 1000,
    );
  }

  /** Discovery keeps its last good result; failed attempts are retried at most once per refetch interval. */
  private async discover(oidc: OidcConfig): Promise<Discovered> {
    if (this.discovered) return this.discovered;
    if (!this.discovering && this.clock() - this.lastDiscoveryAttemptAt < KEY_REFETCH_INTERVAL_MS) {
      throw this.unavailable(this.lastDiscoveryFailure ?? 'discovery has not succeeded yet');
    }
    this.discovering ??= this.runDiscovery(oidc).finally(() => {
      this.discovering = null;
    });
    try {
      return await this.discovering;
    } catch (e) {
      throw this.unavailable(describeProviderFailure(e, oidc.httpTimeoutMs));
    }
  }

  private async runDiscovery(oidc: OidcConfig): Promise<Discovered> {
    this.lastDiscoveryAttemptAt = this.clock();
    try {
      const client: OpenIdClientModule = await import('openid-client');
      const jose: JoseModule = await import('jose');
      const cfg = await client.discovery(new URL(oidc.authority), oidc.clientId, undefined, undefined, {
        timeout: oidc.httpTimeoutMs / 1000,
        ...(oidc.allowInsecureHttp ? { execute: [client.allowInsecureRequests] } : {}),
      });
      const md = cfg.serverMetadata();
      if (!md.jwks_uri) throw new ProviderUnreachableError('the provider publishes no jwks_uri');
      const keys = new JwksCache(new URL(md.jwks_uri), jose, {
        timeoutMs: oidc.httpTimeoutMs,
        refetchIntervalMs: KEY_REFETCH_INTERVAL_MS,
        refreshAfterMs: KEY_REFRESH_AFTER_MS,
        clock: () => this.clock(),
        onFetch: (outcome) => this.providerAnswered(outcome),
      });
      this.discovered = { issuer: md.issuer, keys };
      this.lastDiscoveryFailure = null;
      this.providerAnswered({ ok: true });
      return this.discovered;
    } catch (e) {
      const reason = describeProviderFailure(e, oidc.httpTimeoutMs);
      this.lastDiscoveryFailure = reason;
      this.providerAnswered({ ok: false, reason });
      throw e;
    }
  }

  /** Returns the verified claims or throws DomainError UNAUTHORISED / DependencyUnavailableError. */
  async verify(token: string): Promise<Record<string, unknown>> {
    const oidc = this.oidc;
    if (!oidc) throw new DomainError(ErrorCode.Unauthorised, 'Bearer tokens are not accepted: single sign-on is not configured.');
    const jose: JoseModule = await import('jose');
    try {
      return await this.check(oidc, jose, token);
    } catch (e) {
      if (e instanceof DependencyUnavailableError) throw e;
      const reason = e instanceof Rejection ? e.message : this.reasonOf(e);
      this.rejections.write(reason, this.loggable(jose, token));
      throw new DomainError(ErrorCode.Unauthorised, `Bearer token rejected: ${reason}.`);
    }
  }

  private async check(oidc: OidcConfig, jose: JoseModule, token: string): Promise<Record<string, unknown>> {
    let header: ReturnType<JoseModule['decodeProtectedHeader']>;
    try {
      header = jose.decodeProtectedHeader(token);
    } catch {
      throw new Rejection('the token is not valid');
    }
    if (typeof header.alg !== 'string' || !oidc.algorithms.includes(header.alg))
      throw new Rejection('the signing algorithm is not allowed');
    const embedded = EMBEDDED_KEY_HEADERS.find((h) => header[h] !== undefined);
    if (embedded) throw new Rejection(`the token header names its own key ("${embedded}")`);
    const typ = typeof header.typ === 'string' ? header.typ.toLowerCase() : undefined;
    const typedAccessToken = typ === 'at+jwt' || typ === 'application/at+jwt';
    if (!typedAccessToken && typ !== undefined && typ !== 'jwt' && typ !== 'application/jwt')
      throw new Rejection('the token type is not an access token');

    const discovered = await this.discover(oidc);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jose.jwtVerify(token, (h, t) => discovered.keys.keyFor(h, t), {
        issuer: discovered.issuer,
        audience: oidc.audiences,
        algorithms: oidc.algorithms,
        requiredClaims: ['exp', oidc.subjectClaim],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(this.clock()),
      }));
    } catch (e) {
      if (e instanceof ProviderUnreachableError) throw this.unavailable(e.reason);
      if (e instanceof UnknownSigningKeyError) throw new Rejection(e.message);
      throw e;
    }
    if (typeof payload.iat === 'number' && payload.iat > this.clock() / 1000 + CLOCK_TOLERANCE_SECONDS)
      throw new Rejection('claim check failed (iat: issued in the future)');
    if (!typedAccessToken) this.checkUntypedAccessToken(payload);
    if (containsNul(payload)) throw new Rejection('a claim contains a NUL character');
    const subject = payload[oidc.subjectClaim];
    if (typeof subject !== 'string' || subject === '') throw new Rejection('it has no subject');
    return payload;
  }

  /**
   * Providers that do not type their access tokens (Entra ID, Keycloak) sign ID tokens with the same keys,
   * so an untyped token must look like an access token: no ID-token claims, and a scope (`scope`/`scp`),
   * Keycloak's `typ: "Bearer"`, or Entra's application `roles` with the calling client (`azp`/`appid`).
   */
  private checkUntypedAccessToken(payload: Record<string, unknown>): void {
    const marker = ID_TOKEN_CLAIMS.find((c) => payload[c] !== undefined);
    if (marker) throw new Rejection(`an ID token is not an access token (it carries "${marker}")`);
    if (typeof payload.typ === 'string' && payload.typ.toLowerCase() === 'id')
      throw new Rejection('an ID token is not an access token (typ "ID")');
    const scoped = typeof payload.scope === 'string' || typeof payload.scp === 'string' || Array.isArray(payload.scp);
    const bearer = typeof payload.typ === 'string' && payload.typ.toLowerCase() === 'bearer';
    const appRoles = Array.isArray(payload.roles) && (typeof payload.azp === 'string' || typeof payload.appid === 'string');
    if (!scoped && !bearer && !appRoles)
      throw new Rejection('the token is not typed "at+jwt" and carries no access-token claim (scope, scp, roles)');
  }

  private reasonOf(e: unknown): string {
    const code = (e as { code?: string }).code;
    switch (code) {
      case 'ERR_JWT_EXPIRED':
        return 'the token has expired';
      case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
        const claim = (e as { claim?: string }).claim ?? 'unknown';
        return `claim check failed (${claim}${claim === 'nbf' ? ': not valid yet' : ''})`;
      }
      case 'ERR_JOSE_ALG_NOT_ALLOWED':
        return 'the signing algorithm is not allowed';
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return 'the token is not valid (signature)';
      default:
        return 'the token is not valid';
    }
  }

  /** What a rejection log line may say about the token: its key id and claimed issuer, nothing else. */
  private loggable(jose: JoseModule, token: string): { kid?: string; issuer?: string } {
    const out: { kid?: string; issuer?: string } = {};
    try {
      const kid = jose.decodeProtectedHeader(token).kid;
      if (typeof kid === 'string') out.kid = printable(kid);
    } catch {
      // not a JWT: nothing to add
    }
    try {
      const iss = jose.decodeJwt(token).iss;
      if (typeof iss === 'string') out.issuer = printable(iss);
    } catch {
      // not a JWT: nothing to add
    }
    return out;
  }

  subjectOf(claims: Record<string, unknown>): string {
    const value = claims[this.oidc?.subjectClaim ?? 'sub'];
    if (typeof value !== 'string' || value === '')
      throw new DomainError(ErrorCode.Unauthorised, 'Bearer token rejected: it has no subject.');
    return value;
  }
}

function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (depth > 16) return true;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => containsNul(v, depth + 1));
  return Object.entries(value).some(([k, v]) => k.includes('\0') || containsNul(v, depth + 1));
}

/** Untrusted header/claim text shortened and stripped of control characters before it is logged. */
function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 120 ? `${clean.slice(0, 120)}…` : clean;
}
