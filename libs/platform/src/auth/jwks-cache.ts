import type { FlattenedJWSInput, JSONWebKeySet, JWSHeaderParameters } from 'jose';
import type { webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;

type JoseModule = typeof import('jose');
type LocalKeySet = ReturnType<JoseModule['createLocalJWKSet']>;

/** The provider could not be asked for its keys (network error, timeout, an answer that is not a key set). */
export class ProviderUnreachableError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ProviderUnreachableError';
  }
}

/** The token names a key the provider does not publish (after a refetch, or while refetching is cooling down). */
export class UnknownSigningKeyError extends Error {
  constructor(readonly kid: string | undefined) {
    super(kid === undefined ? 'no published key matches the token' : `the provider publishes no key "${kid}"`);
    this.name = 'UnknownSigningKeyError';
  }
}

export interface JwksCacheOptions {
  /** Bound on one fetch of the key set. */
  timeoutMs: number;
  /** Minimum time between two fetches caused by tokens (unknown `kid`, failed attempts). */
  refetchIntervalMs: number;
  /** After this age the key set is refreshed in the background (the cached keys stay in use meanwhile). */
  refreshAfterMs: number;
  clock: () => number;
  /** Called after every fetch attempt, so the caller can log the start and end of an outage once. */
  onFetch: (outcome: { ok: true } | { ok: false; reason: string }) => void;
}

/** Turns a failed call to the provider into a short reason (never a stack, never a response body). */
export function describeProviderFailure(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; message?: string; code?: string; cause?: { name?: string; code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.cause?.name === 'TimeoutError' || err?.name === 'AbortError')
    return `no answer within ${timeoutMs / 1000} s`;
  if (e instanceof ProviderUnreachableError) return e.reason;
  const code = err?.cause?.code ?? err?.code;
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return `connection failed (${code})`;
  const message = String(err?.cause?.message ?? err?.message ?? e);
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

/**
 * The provider's signing keys. The last key set fetched stays in use until a fetch succeeds again: an
 * unreachable provider never locks out tokens signed with keys Meridian already holds. A token naming an
 * unknown `kid` triggers a refetch, at most one per `refetchIntervalMs`, so a newly published key is usable
 * quickly while random `kid`s cannot make Meridian call the provider more often. Concurrent callers share
 * one fetch, and each fetch is bounded by `timeoutMs`. Keys named by the token itself (`jku`, `x5u`,
 * `jwk`, `x5c`) are never used: only the published set counts.
 */
export class JwksCache {
  private keys: { set: LocalKeySet; fetchedAt: number } | null = null;
  private inflight: Promise<LocalKeySet> | null = null;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private lastFailure: string | null = null;

  constructor(
    private readonly uri: URL,
    private readonly jose: JoseModule,
    private readonly options: JwksCacheOptions,
  ) {}

  /** The key for a token's protected header; throws ProviderUnreachableError or UnknownSigningKeyError. */
  async keyFor(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const now = this.options.clock();
    const coolingDown = now - this.lastAttemptAt < this.options.refetchIntervalMs;
    if (!this.keys) {
      if (this.inflight || !coolingDown) await this.fetchShared();
      else throw new ProviderUnreachableError(this.lastFailure ?? 'the key set is not available yet');
    } else if (now - this.keys.fetchedAt >= this.options.refreshAfterMs && !coolingDown && !this.inflight) {
      // Pick up revoked or rotated keys without making this request wait; failures keep the old set.
      this.fetchShared().catch(() => undefined);
    }
    const found = await this.lookup(header, token);
    if (found) return found;
    if (this.inflight) {
      await this.inflight;
    } else if (this.options.clock() - this.lastAttemptAt >= this.options.refetchIntervalMs) {
      await this.fetchShared();
    } else if (this.lastFailure !== null) {
      throw new ProviderUnreachableError(this.lastFailure);
    } else {
      throw new UnknownSigningKeyError(header.kid);
    }
    const refetched = await this.lookup(header, token);
    if (refetched) return refetched;
    throw new UnknownSigningKeyError(header.kid);
  }

  private async lookup(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey | null> {
    if (!this.keys) return null;
    try {
      return await this.keys.set(header, token);
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY') return null;
      throw e;
    }
  }

  private fetchShared(): Promise<LocalKeySet> {
    this.inflight ??= this.fetchOnce().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetchOnce(): Promise<LocalKeySet> {
    this.lastAttemptAt = this.options.clock();
    try {
      const res = await fetch(this.uri, {
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
        headers: { accept: 'application/json, application/jwk-set+json' },
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new ProviderUnreachableError(`the key set answered HTTP ${res.status}`);
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch (e) {
        if ((e as { name?: string }).name === 'TimeoutError') throw e;
        throw new ProviderUnreachableError('the key set is not valid JSON');
      }
      const keys = (body as { keys?: unknown })?.keys;
      if (!Array.isArray(keys)) throw new ProviderUnreachableError('the key set has no "keys" array');
      const set = this.jose.createLocalJWKSet({ keys } as JSONWebKeySet);
      this.keys = { set, fetchedAt: this.options.clock() };
      this.lastFailure = null;
      this.options.onFetch({ ok: true });
      return set;
    } catch (e) {
      const reason = describeProviderFailure(e, this.options.timeoutMs);
      this.lastFailure = reason;
      this.options.onFetch({ ok: false, reason });
      throw new ProviderUnreachableError(reason);
    }
  }
}
