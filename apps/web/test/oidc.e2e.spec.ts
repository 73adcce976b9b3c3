import { SignJWT } from 'jose';
import { CLIENT_ID, RESOURCE, ssoSettings, startIdentityProvider, TestIdentityProvider } from './oidc-provider';
import { startWebApp, WebHarness } from './harness';

describe('OIDC bearer tokens from a real provider', () => {
  let idp: TestIdentityProvider;
  let h: WebHarness;
  let adminUserId: string;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    h = await startWebApp(ssoSettings(idp.issuer, { OIDC_AUDIENCE: RESOURCE, OIDC_SCOPES: 'openid profile' }));
    const admin = { 'X-Api-Key': h.adminKey };
    const user = await h.http
      .post('/api/v1/metaverse/objects')
      .set(admin)
      .send({
        objectType: 'User',
        attributes: { 'Display Name': 'Alice Administrator', 'Subject Identifier': 'alice', Email: 'alice@example.org' },
      })
      .expect(201);
    adminUserId = user.body.id;
    const roles = await h.http.get('/api/v1/roles').set(admin).expect(200);
    const administrator = roles.body.find((r: { name: string }) => r.name === 'Administrator');
    const added = await h.http.post(`/api/v1/roles/${administrator.id}/members`).set(admin).send({ metaverseObjectId: adminUserId });
    expect([added.status, added.body]).toEqual([201, expect.any(Array)]);
    await h.http
      .post('/api/v1/metaverse/objects')
      .set(admin)
      .send({ objectType: 'User', attributes: { 'Display Name': 'Carol Colleague', 'Subject Identifier': 'carol' } })
      .expect(201);
  });

  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });

  it('publishes the auth config for interactive clients', async () => {
    const res = await h.http.get('/api/v1/auth/config').expect(200);
    expect(res.body).toEqual({
      authority: idp.issuer,
      clientId: CLIENT_ID,
      scopes: ['openid', 'profile'],
      responseType: 'code',
      usePkce: true,
      codeChallengeMethod: 'S256',
      audience: RESOURCE,
      resource: RESOURCE,
    });
  });

  it('maps a token whose subject is an Administrator user to an authorised administrator', async () => {
    const token = await idp.accessTokenFor('alice');
    const info = await h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`).expect(200);
    expect(info.body).toEqual({
      authorised: true,
      isAdministrator: true,
      name: 'Alice Administrator',
      authMethod: 'oauth',
      metaverseObjectId: adminUserId,
      roles: ['Administrator'],
      message: null,
    });
    await h.http.get('/api/v1/apikeys').set('Authorization', `Bearer ${token}`).expect(200);
  });

  it('attributes changes made with a token to the user', async () => {
    const token = await idp.accessTokenFor('alice');
    await h.http.put('/api/v1/service-settings/Sync.PageSize').set('Authorization', `Bearer ${token}`).send({ value: 750 }).expect(200);
    const list = await h.http
      .get('/api/v1/activities?search=Sync.PageSize&sortBy=created&sortDirection=desc')
      .set('X-Api-Key', h.adminKey)
      .expect(200);
    expect(list.body.items[0]).toMatchObject({
      targetType: 'ServiceSetting',
      initiatedByType: 'User',
      initiatedById: adminUserId,
      initiatedByName: 'Alice Administrator',
    });
  });

  it('reports an unknown subject as not authorised and refuses admin endpoints with 403', async () => {
    const token = await idp.accessTokenFor('mallory');
    const info = await h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`).expect(200);
    expect(info.body).toMatchObject({
      authorised: false,
      isAdministrator: false,
      name: 'mallory',
      authMethod: 'oauth',
      metaverseObjectId: null,
      roles: [],
    });
    expect(info.body.message).toMatch(/no identity in Meridian/);
    const denied = await h.http.get('/api/v1/apikeys').set('Authorization', `Bearer ${token}`).expect(403);
    expect(denied.body.code).toBe('FORBIDDEN');
  });

  it('authorises a known user without the Administrator role, but refuses admin endpoints', async () => {
    const token = await idp.accessTokenFor('carol');
    const info = await h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`).expect(200);
    expect(info.body).toMatchObject({ authorised: true, isAdministrator: false, name: 'Carol Colleague', roles: [] });
    await h.http.get('/api/v1/activities').set('Authorization', `Bearer ${token}`).expect(403);
  });

  it.each([
    [
      'an expired token',
      async (idp: TestIdentityProvider) =>
        idp.sign({ sub: 'alice', iss: idp.issuer, aud: RESOURCE }, { expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
      /expired/,
    ],
    [
      'a token for another audience',
      async (idp: TestIdentityProvider) => idp.sign({ sub: 'alice', iss: idp.issuer, aud: 'urn:someone:else' }, { expiresIn: '5m' }),
      /aud/,
    ],
    [
      'a token from another issuer',
      async (idp: TestIdentityProvider) => idp.sign({ sub: 'alice', iss: 'https://evil.example', aud: RESOURCE }, { expiresIn: '5m' }),
      /iss/,
    ],
    ['a token without expiry', async (idp: TestIdentityProvider) => idp.sign({ sub: 'alice', iss: idp.issuer, aud: RESOURCE }), /exp/],
    [
      'a token with a forged signature',
      async (idp: TestIdentityProvider) => {
        const good = await idp.accessTokenFor('alice');
        const [header, payload] = good.split('.');
        return `${header}.${payload}.${Buffer.from('forged').toString('base64url')}`;
      },
      /not valid/,
    ],
    [
      'an unsigned token',
      async () =>
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'alice', aud: RESOURCE })).toString('base64url')}.`,
      /./,
    ],
    ['garbage', async () => 'not-a-jwt', /not valid/],
  ])('refuses %s with 401', async (_label, make, reason) => {
    const token = await make(idp);
    const res = await h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`).expect(401);
    expect(res.body.code).toBe('UNAUTHORISED');
    expect(res.body.message).toMatch(reason);
  });

  it('counts a bearer token at the authenticated limit, apart from the API key limit', async () => {
    const setting = (key: string) => h.http.put(`/api/v1/service-settings/Security.RateLimiting.${key}`).set('X-Api-Key', h.adminKey);
    const token = await idp.accessTokenFor('alice');
    await setting('AuthenticatedRequestsPerMinute').send({ value: 2 }).expect(200);
    try {
      const calls: Array<[number, string]> = [];
      for (let i = 0; i < 3; i++) {
        const res = await h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`);
        calls.push([res.status, res.headers['x-ratelimit-limit']]);
      }
      expect(calls).toEqual([
        [200, '2'],
        [200, '2'],
        [429, '2'],
      ]);
      const byKey = await h.http.get('/api/v1/userinfo').set('X-Api-Key', h.adminKey).expect(200);
      expect(byKey.headers['x-ratelimit-limit']).toBe('6000');
    } finally {
      await setting('AuthenticatedRequestsPerMinute').send({ value: 1_000_000 }).expect(200);
    }
  });

  it('refuses a token signed with a disallowed algorithm (HMAC with a guessed secret)', async () => {
    const token = await new SignJWT({ sub: 'alice', iss: idp.issuer, aud: RESOURCE })
      .setProtectedHeader({ alg: 'HS256', kid: 'test-key-1' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-guessed-shared-secret-of-enough-length'));
    const res = await h.http.get('/api/v1/userinfo').set('Authorization', `Bearer ${token}`).expect(401);
    expect(res.body.message).toMatch(/algorithm|not valid/);
  });
});
