import { OidcTokenVerifier } from '@meridian/platform';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import * as fs from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { startWebApp, WebHarness } from './harness';
import { CLIENT_ID, RESOURCE, ssoSettings, startIdentityProvider, TestIdentityProvider } from './oidc-provider';

interface LogLine {
  level: string;
  message: string;
  correlationId?: string;
  exception?: string;
  properties?: Record<string, unknown>;
}

function logText(h: WebHarness): string {
  return fs
    .readdirSync(h.env.logDir)
    .filter((f) => f.startsWith('web-') && f.endsWith('.log'))
    .map((f) => fs.readFileSync(path.join(h.env.logDir, f), 'utf8'))
    .join('');
}

function logLines(h: WebHarness): LogLine[] {
  return logText(h)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);
}

/** Log lines are written asynchronously: wait until `predicate` holds for them. */
async function waitForLog(h: WebHarness, predicate: (lines: LogLine[]) => boolean): Promise<LogLine[]> {
  for (let i = 0; i < 50; i++) {
    const lines = logLines(h);
    if (predicate(lines)) return lines;
    await new Promise((r) => setTimeout(r, 100));
  }
  return logLines(h);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** A fixture web server standing in for an attacker's key host; counts every request it receives. */
async function startKeyHost(jwks: unknown): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(jwks));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    hits: () => hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const configurations = [
  { label: 'the default configuration (audience = client id)', audience: CLIENT_ID, env: {} as Record<string, string> },
  { label: 'a distinct API audience', audience: RESOURCE, env: { OIDC_AUDIENCE: RESOURCE } as Record<string, string> },
];

describe.each(configurations)('Bearer tokens under $label', ({ audience, env }) => {
  let idp: TestIdentityProvider;
  let h: WebHarness;
  const issued: string[] = [];

  const userinfo = (token: string) => h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`);
  const claims = (extra: Record<string, unknown> = {}) => ({ sub: 'alice', iss: idp.issuer, aud: audience, scope: 'api:read', ...extra });
  const sign: TestIdentityProvider['sign'] = async (c, o) => {
    const token = await idp.sign(c, o);
    issued.push(token);
    return token;
  };

  beforeAll(async () => {
    idp = await startIdentityProvider({ audience });
    h = await startWebApp(ssoSettings(idp.issuer, env));
    await h.http
      .post('/api/v1/metaverse/objects')
      .set('X-Api-Key', h.adminKey)
      .send({ objectType: 'User', attributes: { 'Display Name': 'Alice', 'Subject Identifier': 'alice' } })
      .expect(201);
  });

  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });

  it('tells clients the audience (and the resource, when distinct) to request', async () => {
    const res = await h.http.get('/api/v1/auth/config').expect(200);
    expect(res.body).toEqual({
      authority: idp.issuer,
      clientId: CLIENT_ID,
      scopes: ['openid', 'profile'],
      responseType: 'code',
      usePkce: true,
      codeChallengeMethod: 'S256',
      audience,
      resource: audience === CLIENT_ID ? null : audience,
    });
  });

  it('accepts an at+jwt access token the provider issued through the code flow', async () => {
    const { accessToken } = await idp.tokensFor('alice');
    issued.push(accessToken);
    const res = await userinfo(accessToken).expect(200);
    expect(res.body).toMatchObject({ authorised: true, authMethod: 'oauth', name: 'Alice' });
  });

  it('accepts the client id as audience only when it is configured', async () => {
    const token = await sign(claims({ aud: CLIENT_ID }), { expiresIn: '5m' });
    if (audience === CLIENT_ID) await userinfo(token).expect(200);
    else expect((await userinfo(token).expect(401)).body.message).toMatch(/aud/);
  });

  it("refuses the console's own ID token", async () => {
    const { idToken } = await idp.tokensFor('alice');
    issued.push(idToken);
    const res = await userinfo(idToken).expect(401);
    expect(res.body).toMatchObject({ code: 'UNAUTHORISED' });
    expect(res.body.message).toMatch(audience === CLIENT_ID ? /ID token|access-token/ : /aud/);
  });

  it.each([
    ['typ "JWT" with a scope', { typ: 'JWT' }, {}],
    ['no typ with an Entra-style scp', { typ: null }, { scope: undefined, scp: 'access_as_user' }],
    ['no typ with Entra application roles and azp', { typ: null }, { scope: undefined, roles: ['Meridian.Admin'], azp: 'daemon' }],
    ['typ "JWT" with Keycloak typ Bearer', { typ: 'JWT' }, { scope: undefined, typ: 'Bearer' }],
    ['typ "application/at+jwt"', { typ: 'application/at+jwt' }, { scope: undefined }],
  ])('accepts an access token with %s', async (_label, options, extra) => {
    const token = await sign(claims(extra), { ...options, expiresIn: '5m' });
    await userinfo(token).expect(200);
  });

  it.each([
    ['an untyped token carrying nonce', { typ: 'JWT' }, { nonce: 'n-0S6_WzA2Mj' }, /nonce/],
    ['an untyped token carrying at_hash', { typ: null }, { at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q' }, /at_hash/],
    ['an untyped token carrying c_hash', { typ: 'JWT' }, { c_hash: 'LDktKdoQak3Pk0cnXxCltA' }, /c_hash/],
    ['a Keycloak ID token (typ "ID")', { typ: 'JWT' }, { typ: 'ID' }, /ID token/],
    ['an untyped token without scope (auth_time only)', { typ: 'JWT' }, { scope: undefined, auth_time: now() }, /access-token/],
    ['application roles without a calling client', { typ: null }, { scope: undefined, roles: ['Administrator'] }, /access-token/],
    ['a logout token type', { typ: 'logout+jwt' }, {}, /not an access token/],
    ['an empty subject', { typ: 'at+jwt' }, { sub: '' }, /no subject/],
    ['a subject that is not a string', { typ: 'at+jwt' }, { sub: 42 }, /./],
  ])('refuses %s', async (_label, options, extra, reason) => {
    const token = await sign(claims(extra), { ...options, expiresIn: '5m' });
    const res = await userinfo(token).expect(401);
    expect(res.body.message).toMatch(reason);
  });

  it('refuses a validly signed token whose subject contains a NUL character with 401, never 500', async () => {
    const token = await sign(claims({ sub: 'ali\u0000ce' }), { expiresIn: '5m' });
    const res = await userinfo(token).expect(401);
    expect(res.body.message).toMatch(/NUL/);
    const inName = await sign(claims({ name: 'Eve\u0000' }), { expiresIn: '5m' });
    await userinfo(inName).expect(401);
  });

  it('applies the clock tolerance to iat and nbf', async () => {
    await userinfo(await sign(claims(), { iat: now() + 10, expiresIn: '5m' })).expect(200);
    const future = await userinfo(await sign(claims(), { iat: now() + 365 * 86400, expiresIn: now() + 366 * 86400 })).expect(401);
    expect(future.body.message).toMatch(/iat/);
    const early = await userinfo(await sign(claims({ nbf: now() + 3600 }), { expiresIn: '2h' })).expect(401);
    expect(early.body.message).toMatch(/nbf/);
  });

  describe('classic attacks', () => {
    it.each([
      ['alg "none"', async () => `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64({ ...claims(), exp: now() + 300 })}.`, /algorithm/],
      [
        "HS256 signed with the provider's public key",
        async () => {
          const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
          const { importJWK } = await import('jose');
          const pem = await exportSPKI((await importJWK({ ...jwks.keys[0], alg: 'RS256' }, 'RS256', { extractable: true })) as never);
          return new SignJWT(claims())
            .setProtectedHeader({ alg: 'HS256', kid: 'test-key-1', typ: 'at+jwt' })
            .setIssuedAt()
            .setExpirationTime('5m')
            .sign(new TextEncoder().encode(pem));
        },
        /algorithm/,
      ],
      ['expired', async () => sign(claims(), { expiresIn: now() - 3600 }), /expired/],
      ['from another issuer', async () => sign(claims({ iss: 'https://evil.example' }), { expiresIn: '5m' }), /iss/],
      ['for another audience', async () => sign(claims({ aud: 'urn:someone:else' }), { expiresIn: '5m' }), /aud/],
      [
        'with a tampered payload',
        async () => {
          const [header, , signature] = (await sign(claims({ sub: 'carol' }), { expiresIn: '5m' })).split('.');
          return `${header}.${b64({ ...claims(), exp: now() + 300, iat: now() })}.${signature}`;
        },
        /not valid/,
      ],
    ])('refuses a token %s', async (_label, make, reason) => {
      const res = await userinfo(await make()).expect(401);
      expect(res.body.code).toBe('UNAUTHORISED');
      expect(res.body.message).toMatch(reason);
    });

    it('refuses a token signed with a key the provider does not publish (unknown kid)', async () => {
      const attacker = await generateKeyPair('RS256');
      const token = await new SignJWT({ ...claims() })
        .setProtectedHeader({ alg: 'RS256', kid: 'attacker-key', typ: 'at+jwt' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(attacker.privateKey);
      const res = await userinfo(token).expect(401);
      expect(res.body.message).toMatch(/attacker-key/);
    });

    it.each(['jku', 'x5u', 'jwk'])('never uses a key the token names itself (%s) and never fetches it', async (param) => {
      const attacker = await generateKeyPair('RS256', { extractable: true });
      const publicJwk = { ...(await exportJWK(attacker.publicKey)), kid: 'attacker-key', alg: 'RS256' };
      const host = await startKeyHost({ keys: [publicJwk] });
      try {
        const value = param === 'jwk' ? publicJwk : host.url;
        const token = await new SignJWT({ ...claims() })
          .setProtectedHeader({ alg: 'RS256', kid: 'attacker-key', typ: 'at+jwt', [param]: value })
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(attacker.privateKey);
        const res = await userinfo(token).expect(401);
        expect(res.body.message).toMatch(new RegExp(param));
        expect(host.hits()).toBe(0);
      } finally {
        await host.close();
      }
    });
  });

  it('logs rejections as warnings with reason and correlation id, never a token or a stack', async () => {
    // Start a fresh minute of the rejection log's rate limit.
    const verifier = h.app.get(OidcTokenVerifier);
    verifier.clock = () => Date.now() + 61_000;
    const token = await sign(claims({ aud: 'urn:someone:else' }), { expiresIn: '5m' });
    await userinfo(token).set('X-Correlation-Id', 'rejection-trace-1').expect(401);
    const rejected = (l: LogLine) => l.correlationId === 'rejection-trace-1' && l.message.startsWith('Access token rejected');
    const lines = await waitForLog(h, (l) => l.some(rejected));
    const line = lines.find(rejected);
    expect(line).toMatchObject({ level: 'Warning', message: 'Access token rejected: claim check failed (aud)' });
    expect(line?.properties).toMatchObject({ kid: 'test-key-1', issuer: idp.issuer });
    const text = logText(h);
    for (const t of issued) expect(text).not.toContain(t.split('.')[2]);
    expect(lines.filter((l) => l.exception)).toEqual([]);
    expect(lines.filter((l) => l.level === 'Error' || l.level === 'Fatal')).toEqual([]);
  });
});

describe('Bearer tokens: key rotation and provider outages', () => {
  let idp: TestIdentityProvider;
  let h: WebHarness;
  let verifier: OidcTokenVerifier;
  let offset = 0;
  const advance = (ms: number) => {
    offset += ms;
  };
  const at = () => Math.floor((Date.now() + offset) / 1000);
  const claims = () => ({ sub: 'alice', iss: idp.issuer, aud: RESOURCE, scope: 'api:read' });
  const issued: string[] = [];
  const signWith = async (kid: string) => {
    const token = await idp.sign(claims(), { kid, iat: at(), expiresIn: at() + 3600 });
    issued.push(token);
    return token;
  };
  const userinfo = (token: string) => h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    idp = await startIdentityProvider();
    h = await startWebApp(ssoSettings(idp.issuer, { OIDC_AUDIENCE: RESOURCE, OIDC_HTTP_TIMEOUT_SECONDS: '1' }));
    verifier = h.app.get(OidcTokenVerifier);
    verifier.clock = () => Date.now() + offset;
  });

  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });

  it('accepts a newly published key at once, and random kids cause at most one fetch per 5 s', async () => {
    await userinfo(await signWith('test-key-1')).expect(200);
    advance(6_000);
    await idp.publishKey('rotated-1');
    const before = idp.jwksFetches;
    await userinfo(await signWith('rotated-1')).expect(200);
    expect(idp.jwksFetches).toBe(before + 1);

    advance(6_000);
    const attacker = await generateKeyPair('RS256');
    const random = async (i: number) =>
      new SignJWT(claims())
        .setProtectedHeader({ alg: 'RS256', kid: `random-${i}`, typ: 'at+jwt' })
        .setIssuedAt(at())
        .setExpirationTime(at() + 300)
        .sign(attacker.privateKey);
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => random(i)));
    const afterBurst = idp.jwksFetches;
    const statuses = await Promise.all(burst.map(async (t) => (await userinfo(t)).status));
    for (const t of burst.slice(0, 5)) statuses.push((await userinfo(t)).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(idp.jwksFetches).toBe(afterBurst + 1);

    // Published during the cool-down: usable once the 5 s have passed, fetched once by many requests.
    await idp.publishKey('rotated-2');
    await userinfo(await signWith('rotated-2')).expect(401);
    expect(idp.jwksFetches).toBe(afterBurst + 1);
    advance(5_000);
    const token = await signWith('rotated-2');
    const concurrent = await Promise.all(Array.from({ length: 10 }, async () => (await userinfo(token)).status));
    expect(concurrent).toEqual(Array(10).fill(200));
    expect(idp.jwksFetches).toBe(afterBurst + 2);
  });

  it('keeps the cached keys while the provider is stopped, and answers 503 naming it for keys it cannot fetch', async () => {
    await idp.stop();
    // Beyond the 10-minute cache age of a remote key set: no age locks users out.
    advance(11 * 60_000);
    await userinfo(await signWith('test-key-1')).expect(200);
    await userinfo(await signWith('rotated-2')).expect(200);
    await idp.publishKey('rotated-3');
    advance(6_000);
    const res = await userinfo(await signWith('rotated-3')).expect(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(res.body.message).toContain(`The identity provider (${new URL(idp.issuer).host}) cannot be reached`);
    // Within the cool-down the answer is immediate and the same.
    await userinfo(await signWith('rotated-3')).expect(503);
    await userinfo(await signWith('test-key-1')).expect(200);

    await idp.start();
    advance(6_000);
    await userinfo(await signWith('rotated-3')).expect(200);
    const lines = await waitForLog(h, (l) => l.some((x) => /answers again/.test(x.message)));
    const outageStart = lines.filter((l) => l.message.startsWith('The identity provider') && /cannot be reached/.test(l.message));
    expect(outageStart).toHaveLength(1);
    expect(outageStart[0].exception).toBeUndefined();
    expect(lines.filter((l) => /answers again/.test(l.message))).toEqual([expect.objectContaining({ level: 'Information' })]);
  });

  it('answers within the timeout when the provider accepts connections but never answers', async () => {
    await idp.publishKey('rotated-4');
    idp.hang(true);
    try {
      advance(6_000);
      const res = await userinfo(await signWith('rotated-4')).expect(503);
      expect(res.body.message).toMatch(/no answer within 1 s/);
      await userinfo(await signWith('test-key-1')).expect(200);
    } finally {
      idp.hang(false);
    }
  });

  it('rate-limits rejection lines: at most 10 a minute, then one line counting the rest', async () => {
    advance(61_000);
    const bad = await idp.sign({ ...claims(), aud: 'urn:someone:else' }, { iat: at(), expiresIn: at() + 300 });
    for (let i = 0; i < 15; i++) await userinfo(bad).set('X-Correlation-Id', `flood-${i}`).expect(401);
    advance(61_000);
    await userinfo(bad).set('X-Correlation-Id', 'flood-after').expect(401);
    const lines = await waitForLog(h, (l) => l.some((x) => x.correlationId === 'flood-after' && /rejected/.test(x.message)));
    const flood = lines.filter((l) => l.correlationId?.startsWith('flood-') && /^Access token rejected/.test(l.message));
    expect(flood.map((l) => l.correlationId)).toEqual([...Array.from({ length: 10 }, (_, i) => `flood-${i}`), 'flood-after']);
    expect(lines.filter((l) => /^5 further access token rejections suppressed/.test(l.message))).toHaveLength(1);
    const text = logText(h);
    for (const t of [...issued, bad]) expect(text).not.toContain(t.split('.')[2]);
    expect(lines.filter((l) => l.exception)).toEqual([]);
    expect(lines.filter((l) => l.level === 'Error' || l.level === 'Fatal')).toEqual([]);
  });
});

describe('Bearer tokens: a provider that is unreachable from the start', () => {
  let hangingServer: Server;
  let h: WebHarness;

  beforeAll(async () => {
    hangingServer = createServer(() => undefined);
    await new Promise<void>((r) => hangingServer.listen(0, '127.0.0.1', r));
    h = await startWebApp(
      ssoSettings(`http://127.0.0.1:${(hangingServer.address() as AddressInfo).port}`, { OIDC_HTTP_TIMEOUT_SECONDS: '1' }),
    );
  });

  afterAll(async () => {
    await h?.close();
    hangingServer.closeAllConnections();
    await new Promise<void>((r) => hangingServer.close(() => r()));
  });

  it('answers 503 with Retry-After within the timeout when discovery hangs, and logs one warning', async () => {
    const token = `${b64({ alg: 'RS256', kid: 'k', typ: 'at+jwt' })}.${b64({ sub: 'alice', exp: now() + 300 })}.${'A'.repeat(342)}`;
    const concurrent = await Promise.all([1, 2, 3].map(() => h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`)));
    for (const res of concurrent) {
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.message).toMatch(/^The identity provider \(127\.0\.0\.1:\d+\) cannot be reached: no answer within 1 s/);
    }
    const lines = await waitForLog(h, (l) => l.some((x) => x.message.startsWith('The identity provider')));
    expect(lines.filter((l) => l.message.startsWith('The identity provider'))).toHaveLength(1);
    expect(lines.filter((l) => l.exception)).toEqual([]);
  });
});
