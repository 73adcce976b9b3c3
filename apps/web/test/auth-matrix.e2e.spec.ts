import { RouteCatalog, RouteInfo } from '../src/http/route-catalog';
import { startWebApp, WebHarness } from './harness';

const RANDOM_UUID = '6b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';

function concretePath(route: RouteInfo): string {
  return route.path.replace(/:[A-Za-z0-9_]+/g, (name) => (/id$/i.test(name) && !/key/i.test(name) ? RANDOM_UUID : 'Sync.PageSize'));
}

function call(h: WebHarness, route: RouteInfo, headers: Record<string, string>) {
  const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
  let req = h.http[method](concretePath(route));
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return ['post', 'put', 'patch'].includes(method) ? req.send({}) : req;
}

describe('authentication and authorisation on every route', () => {
  let h: WebHarness;
  let routes: RouteInfo[];
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    h = await startWebApp();
    routes = h.app.get(RouteCatalog).routes;
    const admin = { 'X-Api-Key': h.adminKey };
    const create = async (name: string, roles: string[]) => {
      const res = await h.http.post('/api/v1/apikeys').set(admin).send({ name, roles }).expect(201);
      return res.body as { id: string; key: string };
    };
    keys.noRoles = (await create('no roles', [])).key;
    const expired = await create('expired', ['Administrator']);
    await h.http
      .put(`/api/v1/apikeys/${expired.id}`)
      .set(admin)
      .send({ expiresAt: new Date(Date.now() - 60_000).toISOString() })
      .expect(200);
    keys.expired = expired.key;
    const disabled = await create('disabled', ['Administrator']);
    await h.http.put(`/api/v1/apikeys/${disabled.id}`).set(admin).send({ isEnabled: false }).expect(200);
    keys.disabled = disabled.key;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('declares an access rule on every route (deny by default)', () => {
    expect(routes.length).toBeGreaterThan(20);
    const undeclared = routes.filter((r) => !r.access).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });

  it('guards the history endpoints with the Administrator role (spec 4.10)', () => {
    const history = routes.filter((r) => r.path.startsWith('/api/v1/history/'));
    expect(history.map((r) => `${r.method} ${r.path}`)).toContain('POST /api/v1/history/cleanup');
    for (const r of history)
      expect({ route: `${r.method} ${r.path}`, access: r.access }).toEqual({
        route: `${r.method} ${r.path}`,
        access: { kind: 'role', role: 'Administrator' },
      });
  });

  it('keeps exactly the anonymous endpoints of spec §5.3 anonymous', () => {
    const anonymous = routes
      .filter((r) => r.access?.kind === 'public')
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(anonymous).toEqual([
      'GET /api/v1/auth/config',
      'GET /api/v1/health',
      'GET /api/v1/health/live',
      'GET /api/v1/health/ready',
      'GET /api/v1/health/version',
    ]);
    const anyAuthenticated = routes.filter((r) => r.access?.kind === 'authenticated').map((r) => `${r.method} ${r.path}`);
    expect(anyAuthenticated).toEqual(['GET /api/v1/userinfo']);
  });

  it('guards the history routes for Administrators', () => {
    const history = routes
      .filter((r) => r.path.includes('/history'))
      .map((r) => `${r.method} ${r.path} ${r.access?.kind}`)
      .sort();
    expect(history).toEqual(
      expect.arrayContaining([
        'GET /api/v1/history/connected-systems/:connectedSystemId/count role',
        'GET /api/v1/history/deleted-objects/cso role',
        'GET /api/v1/history/deleted-objects/mvo role',
        'GET /api/v1/metaverse/objects/:id/history role',
        'GET /api/v1/synchronisation/connected-systems/:connectedSystemId/connector-space/:objectId/history role',
      ]),
    );
    expect(history.every((r) => r.endsWith(' role'))).toBe(true);
  });

  it('answers anonymous endpoints without credentials', async () => {
    for (const route of routes.filter((r) => r.access?.kind === 'public')) {
      const res = await call(h, route, {});
      expect([route.path, res.status]).not.toEqual([route.path, 401]);
      expect([route.path, res.status]).not.toEqual([route.path, 403]);
    }
  });

  it.each([
    ['no credential', {}],
    ['a wrong key', { 'X-Api-Key': 'mer_this-key-does-not-exist-aaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['an empty key', { 'X-Api-Key': '' }],
    ['a malformed bearer header', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['a bearer token while SSO is off', { Authorization: 'Bearer abc.def.ghi' }],
  ])('refuses %s with 401 UNAUTHORISED on every protected route', async (_label, headers) => {
    for (const route of routes.filter((r) => r.access?.kind !== 'public')) {
      const res = await call(h, route, headers as Record<string, string>);
      expect({ route: `${route.method} ${route.path}`, status: res.status, code: res.body.code }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 401,
        code: 'UNAUTHORISED',
      });
      expect(res.body.path).toBe(concretePath(route));
    }
  });

  it.each(['expired', 'disabled'])('refuses an %s Administrator key with 401 on every protected route', async (which) => {
    for (const route of routes.filter((r) => r.access?.kind !== 'public')) {
      const res = await call(h, route, { 'X-Api-Key': keys[which] });
      expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 401,
      });
      expect(res.body.message).toMatch(which === 'expired' ? /expired/ : /disabled/);
    }
  });

  it('gives a key without roles 403 FORBIDDEN on every admin route, and userinfo', async () => {
    for (const route of routes.filter((r) => r.access?.kind === 'role')) {
      const res = await call(h, route, { 'X-Api-Key': keys.noRoles });
      expect({ route: `${route.method} ${route.path}`, status: res.status, code: res.body.code }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
        code: 'FORBIDDEN',
      });
    }
    const info = await h.http.get('/api/v1/userinfo').set('X-Api-Key', keys.noRoles).expect(200);
    expect(info.body).toMatchObject({ authorised: true, isAdministrator: false, authMethod: 'api_key', roles: [], name: 'no roles' });
  });

  it('lets the bootstrap Administrator key through every admin route (2xx for every parameterless GET)', async () => {
    for (const route of routes.filter((r) => r.access?.kind === 'role')) {
      const res = await call(h, route, { 'X-Api-Key': h.adminKey });
      expect({ route: `${route.method} ${route.path}`, denied: [401, 403].includes(res.status), serverError: res.status >= 500 }).toEqual({
        route: `${route.method} ${route.path}`,
        denied: false,
        serverError: false,
      });
      if (route.method === 'GET' && !route.path.includes(':')) {
        expect({ route: route.path, status: res.status }).toEqual({ route: route.path, status: 200 });
      }
    }
  });

  it('reports the bootstrap key as an administrator in userinfo', async () => {
    const res = await h.http.get('/api/v1/userinfo').set('X-Api-Key', h.adminKey).expect(200);
    expect(res.body).toEqual({
      authorised: true,
      isAdministrator: true,
      name: 'Bootstrap administrator key',
      authMethod: 'api_key',
      metaverseObjectId: null,
      roles: ['Administrator'],
      message: null,
    });
  });

  it('reports 503 SERVICE_UNAVAILABLE for auth config while single sign-on is not configured', async () => {
    const res = await h.http.get('/api/v1/auth/config').expect(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
  });
});
