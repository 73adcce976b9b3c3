import * as jose from 'jose';
import { createServer, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwksCache, ProviderUnreachableError, UnknownSigningKeyError } from './jwks-cache';

/** A key set server that counts fetches and can fail, hang or publish more keys. */
async function startKeySet() {
  const keys: jose.JWK[] = [];
  const signers = new Map<string, Awaited<ReturnType<typeof jose.generateKeyPair>>['privateKey']>();
  let fetches = 0;
  let mode: 'ok' | 'error' | 'hang' = 'ok';
  const hung: ServerResponse[] = [];
  const server: Server = createServer((_req, res) => {
    fetches++;
    if (mode === 'hang') return void hung.push(res);
    if (mode === 'error') {
      res.statusCode = 502;
      return void res.end('bad gateway');
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`),
    fetches: () => fetches,
    setMode: (m: typeof mode) => {
      mode = m;
      if (m !== 'hang') for (const res of hung.splice(0)) res.destroy();
    },
    async publish(kid: string) {
      const pair = await jose.generateKeyPair('RS256', { extractable: true });
      signers.set(kid, pair.privateKey);
      keys.push({ ...(await jose.exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' });
    },
    withdraw(kid: string) {
      keys.splice(
        keys.findIndex((k) => k.kid === kid),
        1,
      );
    },
    async token(kid: string) {
      const key = signers.get(kid) ?? (await jose.generateKeyPair('RS256')).privateKey;
      return new jose.SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('5m').sign(key);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of hung.splice(0)) res.destroy();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

describe('JwksCache', () => {
  let ks: Awaited<ReturnType<typeof startKeySet>>;
  let now: number;
  let outcomes: string[];
  let cache: JwksCache;

  const verify = async (kid: string) => (await jose.jwtVerify(await ks.token(kid), (h, t) => cache.keyFor(h, t))).payload.sub;

  beforeEach(async () => {
    ks = await startKeySet();
    await ks.publish('k1');
    now = 1_000_000;
    outcomes = [];
    cache = new JwksCache(ks.url, jose, {
      timeoutMs: 300,
      refetchIntervalMs: 5_000,
      refreshAfterMs: 600_000,
      clock: () => now,
      onFetch: (o) => outcomes.push(o.ok ? 'ok' : `failed: ${o.reason}`),
    });
  });

  afterEach(() => ks.close());

  it('fetches once for concurrent first requests and then serves from the cache', async () => {
    expect(await Promise.all([verify('k1'), verify('k1'), verify('k1')])).toEqual(['x', 'x', 'x']);
    await verify('k1');
    expect(ks.fetches()).toBe(1);
  });

  it('refetches for an unknown kid at most once per interval', async () => {
    await verify('k1');
    now += 5_000;
    const burst = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => verify(`random-${i}`)));
    expect(burst.every((r) => r.status === 'rejected' && r.reason instanceof UnknownSigningKeyError)).toBe(true);
    expect(ks.fetches()).toBe(2);
    await ks.publish('k2');
    await expect(verify('k2')).rejects.toBeInstanceOf(UnknownSigningKeyError);
    expect(ks.fetches()).toBe(2);
    now += 5_000;
    expect(await verify('k2')).toBe('x');
    expect(ks.fetches()).toBe(3);
  });

  it('keeps the last key set while the provider fails, with no maximum age, and reports the outage', async () => {
    await verify('k1');
    ks.setMode('error');
    now += 24 * 3600_000;
    expect(await verify('k1')).toBe('x'); // starts a background refresh, which fails
    await new Promise((r) => setTimeout(r, 50));
    expect(await verify('k1')).toBe('x');
    await expect(verify('unknown')).rejects.toEqual(new ProviderUnreachableError('the key set answered HTTP 502'));
    expect(outcomes).toEqual(['ok', 'failed: the key set answered HTTP 502']);
    ks.setMode('ok');
    await ks.publish('k3');
    now += 5_000;
    expect(await verify('k3')).toBe('x');
    expect(outcomes.at(-1)).toBe('ok');
  });

  it('bounds a fetch from a provider that never answers by the timeout', async () => {
    ks.setMode('hang');
    await expect(verify('k1')).rejects.toEqual(new ProviderUnreachableError('no answer within 0.3 s'));
    // Within the interval the failure is answered at once, without another fetch.
    await expect(verify('k1')).rejects.toBeInstanceOf(ProviderUnreachableError);
    expect(ks.fetches()).toBe(1);
  });

  it('drops withdrawn keys after a background refresh', async () => {
    await ks.publish('old');
    expect(await verify('old')).toBe('x');
    ks.withdraw('old');
    now += 600_000;
    expect(await verify('k1')).toBe('x'); // served from the cache while the refresh runs
    let outcome: unknown = 'x';
    for (let i = 0; i < 100 && outcome === 'x'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      outcome = await verify('old').catch((e: unknown) => e);
    }
    expect(outcome).toBeInstanceOf(UnknownSigningKeyError);
    expect(ks.fetches()).toBe(2);
  });
});
