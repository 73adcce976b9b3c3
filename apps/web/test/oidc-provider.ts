import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as client from 'openid-client';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors as oidcErrors } from 'oidc-provider';

export const RESOURCE = 'urn:meridian:api';
export const CLIENT_ID = 'meridian-console';
const REDIRECT = 'http://127.0.0.1:9/callback';

export interface TestIdentityProvider {
  issuer: string;
  /** Runs the authorisation code flow with PKCE for `subject` and returns the JWT access token. */
  accessTokenFor(subject: string): Promise<string>;
  /** Signs an arbitrary token with the provider's own key (for claim checks). */
  sign(claims: Record<string, unknown>, options?: { alg?: string; expiresIn?: string | number; typ?: string }): Promise<string>;
  close(): Promise<void>;
}

/** A real OpenID Connect provider (oidc-provider) running in-process on a loopback port. */
export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-key-1' };
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
            audience: RESOURCE,
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
  server.on('request', async (req, res) => {
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

  async function accessTokenFor(subject: string): Promise<string> {
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
    return tokens.access_token;
  }

  async function sign(
    claims: Record<string, unknown>,
    options: { alg?: string; expiresIn?: string | number; typ?: string } = {},
  ): Promise<string> {
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: 'test-key-1', typ: options.typ ?? 'at+jwt' })
      .setIssuedAt();
    if (options.expiresIn !== undefined) jwt.setExpirationTime(options.expiresIn);
    return jwt.sign(privateKey);
  }

  return {
    issuer,
    accessTokenFor,
    sign,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
