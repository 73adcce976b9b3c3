import { exportJWK, generateKeyPair, JWK, SignJWT } from 'jose';
import * as client from 'openid-client';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors as oidcErrors } from 'oidc-provider';

export const RESOURCE = 'urn:meridian:api';
export const CLIENT_ID = 'meridian-console';
const REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * The web app's single sign-on settings for a provider at `authority` (plain HTTP on the loopback), with
 * the console's client id; `extra` adds or overrides (OIDC_AUDIENCE, timeouts…).
 */
export function ssoSettings(authority: string, extra: Record<string, string> = {}): Record<string, string> {
  return { OIDC_AUTHORITY: authority, OIDC_CLIENT_ID: CLIENT_ID, OIDC_ALLOW_INSECURE_HTTP: 'true', ...extra };
}

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface SignOptions {
  alg?: string;
  expiresIn?: string | number;
  /** The header `typ`; null leaves it out. Default `at+jwt`. */
  typ?: string | null;
  /** Another published key's id (see publishKey); default the provider's own key. */
  kid?: string;
  /** Extra protected header parameters (`jku`, `x5u`…). */
  header?: Record<string, unknown>;
  /** `iat` in seconds since the epoch; default now. */
  iat?: number;
}

export interface TestIdentityProvider {
  issuer: string;
  /** Runs the authorisation code flow with PKCE for `subject` and returns the JWT access token. */
  accessTokenFor(subject: string): Promise<string>;
  /** The same flow, returning the access token and the ID token the client receives. */
  tokensFor(subject: string): Promise<{ accessToken: string; idToken: string }>;
  /** Signs an arbitrary token with a key the provider publishes (for claim checks). */
  sign(claims: Record<string, unknown>, options?: SignOptions): Promise<string>;
  /** Generates a key and publishes it in the provider's key set from now on (a key rotation). */
  publishKey(kid: string): Promise<void>;
  /** How many times the key set (jwks_uri) has been fetched. */
  readonly jwksFetches: number;
  /** Stops answering: the port is closed (connections are refused) until start(). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** While true, connections are accepted but no request is ever answered. */
  hang(on: boolean): void;
  close(): Promise<void>;
}

/** `audience` is the `aud` of the access tokens the provider issues for the API resource. */
export interface IdentityProviderOptions {
  audience?: string;
}

/** A real OpenID Connect provider (oidc-provider) running in-process on a loopback port. */
export async function startIdentityProvider(options: IdentityProviderOptions = {}): Promise<TestIdentityProvider> {
  const audience = options.audience ?? RESOURCE;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-key-1' };
  const signingKeys = new Map<string, PrivateKey>([['test-key-1', privateKey]]);
  const extraPublicKeys: JWK[] = [];
  let jwksFetches = 0;
  let hanging = false;
  const hung: ServerResponse[] = [];
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  let nextAccount = 'nobody';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['meridian-test-cookie-key'] },
    ttl: { AccessToken: 300, AuthorizationCode: 60, IdToken: 300, Interaction: 300, Grant: 300, Session: 300 },
    scopes: ['openid'],
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== RESOURCE) throw new oidcErrors.InvalidTarget();
          return {
            scope: 'api:read api:write',
            audience,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 300,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });
  const callback = provider.callback();
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk;
  server.on('request', async (req: IncomingMessage, res: ServerResponse) => {
    if (hanging) {
      hung.push(res);
      return;
    }
    if (req.url === '/jwks') {
      jwksFetches++;
      res.setHeader('Content-Type', 'application/jwk-set+json');
      return res.end(JSON.stringify({ keys: [publicJwk, ...extraPublicKeys] }));
    }
    if (req.url?.startsWith('/interaction/')) {
      // Headless sign-in and consent for whoever the test asked for.
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: nextAccount, clientId: details.params.client_id as string });
      grant.addOIDCScope('openid');
      grant.addResourceScope(RESOURCE, 'api:read api:write');
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: nextAccount }, consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: false },
      );
    }
    return callback(req, res);
  });

  const config = await client.discovery(new URL(issuer), CLIENT_ID, undefined, client.None(), { execute: [client.allowInsecureRequests] });

  async function tokensFor(subject: string): Promise<{ accessToken: string; idToken: string }> {
    nextAccount = subject;
    const verifier = client.randomPKCECodeVerifier();
    let url = client
      .buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid api:read',
        resource: RESOURCE,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      })
      .toString();
    const jar = new Map<string, string>();
    for (let hops = 0; hops < 20 && !url.startsWith(REDIRECT); hops++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair.indexOf('=');
        jar.set(pair.slice(0, i), pair.slice(i + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`authorisation flow stopped at ${url} with ${res.status}`);
      url = new URL(location, url).toString();
    }
    const tokens = await client.authorizationCodeGrant(config, new URL(url), { pkceCodeVerifier: verifier }, { resource: RESOURCE });
    if (!tokens.id_token) throw new Error('the provider issued no ID token');
    return { accessToken: tokens.access_token, idToken: tokens.id_token };
  }

  async function sign(claims: Record<string, unknown>, options: SignOptions = {}): Promise<string> {
    const kid = options.kid ?? 'test-key-1';
    const key = signingKeys.get(kid);
    if (!key) throw new Error(`no key ${kid}`);
    const typ = options.typ === undefined ? 'at+jwt' : options.typ;
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: options.alg ?? 'RS256', kid, ...(typ === null ? {} : { typ }), ...options.header })
      .setIssuedAt(options.iat);
    if (options.expiresIn !== undefined) jwt.setExpirationTime(options.expiresIn);
    return jwt.sign(key);
  }

  async function publishKey(kid: string): Promise<void> {
    const pair = await generateKeyPair('RS256', { extractable: true });
    signingKeys.set(kid, pair.privateKey);
    extraPublicKeys.push({ ...(await exportJWK(pair.publicKey)), alg: 'RS256', use: 'sig', kid });
  }

  return {
    issuer,
    accessTokenFor: async (subject) => (await tokensFor(subject)).accessToken,
    tokensFor,
    sign,
    publishKey,
    get jwksFetches() {
      return jwksFetches;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
    start: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    hang: (on) => {
      hanging = on;
      if (!on) for (const res of hung.splice(0)) res.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of hung.splice(0)) res.destroy();
        if (!server.listening) return r();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
