import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from './app-config';

const KEY = randomBytes(32).toString('base64');
const base = { MERIDIAN_ENCRYPTION_KEY: KEY };

function problem(env: Record<string, string>): string {
  try {
    loadConfig('web', env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message.split('\n')).toHaveLength(1);
    return (e as Error).message;
  }
  throw new Error('configuration was accepted');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig('web', base);
    expect(c).toMatchObject({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/meridian',
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'meridian',
      port: 8080,
      bootstrapApiKey: null,
      logLevel: 'Information',
      oidc: null,
      tls: null,
      bodyLimit: '1mb',
      workerConcurrency: 2,
    });
    expect(c.encryptionKey).toHaveLength(32);
    expect(c.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('accepts a hex encryption key and a complete OIDC configuration', () => {
    const c = loadConfig('web', {
      MERIDIAN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OIDC_AUTHORITY: 'https://login.example.org/realms/x/',
      OIDC_CLIENT_ID: 'meridian',
      OIDC_SCOPES: 'openid profile email',
    });
    expect(c.oidc).toEqual({
      authority: 'https://login.example.org/realms/x',
      clientId: 'meridian',
      scopes: ['openid', 'profile', 'email'],
      audiences: ['meridian'],
      subjectClaim: 'sub',
      subjectAttribute: 'Subject Identifier',
      algorithms: ['RS256', 'PS256', 'ES256'],
      allowInsecureHttp: false,
      httpTimeoutMs: 3000,
    });
  });

  it('reads several API audiences and a provider timeout', () => {
    const c = loadConfig('web', {
      MERIDIAN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OIDC_AUTHORITY: 'https://login.example.org',
      OIDC_CLIENT_ID: 'meridian',
      OIDC_AUDIENCE: 'api://meridian, meridian',
      OIDC_HTTP_TIMEOUT_SECONDS: '1.5',
    });
    expect(c.oidc).toMatchObject({ audiences: ['api://meridian', 'meridian'], httpTimeoutMs: 1500 });
  });

  it.each([
    [{}, 'MERIDIAN_ENCRYPTION_KEY'],
    [{ MERIDIAN_ENCRYPTION_KEY: 'short' }, 'MERIDIAN_ENCRYPTION_KEY'],
    [{ MERIDIAN_ENCRYPTION_KEY_FILE: '/nonexistent/key' }, 'MERIDIAN_ENCRYPTION_KEY_FILE'],
    [{ ...base, DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ ...base, DATABASE_URL: 'mysql://localhost/x' }, 'DATABASE_URL'],
    [{ ...base, REDIS_URL: 'http://localhost' }, 'REDIS_URL'],
    [{ ...base, PORT: 'eighty' }, 'PORT'],
    [{ ...base, PORT: '70000' }, 'PORT'],
    [{ ...base, MERIDIAN_BOOTSTRAP_API_KEY: 'too-short' }, 'MERIDIAN_BOOTSTRAP_API_KEY'],
    [{ ...base, MERIDIAN_LOG_LEVEL: 'chatty' }, 'MERIDIAN_LOG_LEVEL'],
    [{ ...base, OIDC_AUTHORITY: 'https://idp.example.org' }, 'OIDC_CLIENT_ID'],
    [{ ...base, OIDC_CLIENT_ID: 'x' }, 'OIDC_AUTHORITY'],
    [{ ...base, OIDC_AUTHORITY: 'http://idp.example.org', OIDC_CLIENT_ID: 'x' }, 'OIDC_AUTHORITY'],
    [{ ...base, OIDC_AUTHORITY: 'https://idp.example.org', OIDC_CLIENT_ID: 'x', OIDC_SCOPES: 'profile' }, 'OIDC_SCOPES'],
    [{ ...base, OIDC_AUTHORITY: 'https://idp.example.org', OIDC_CLIENT_ID: 'x', OIDC_ALGORITHMS: 'HS256' }, 'OIDC_ALGORITHMS'],
    [
      { ...base, OIDC_AUTHORITY: 'https://idp.example.org', OIDC_CLIENT_ID: 'x', OIDC_HTTP_TIMEOUT_SECONDS: '0' },
      'OIDC_HTTP_TIMEOUT_SECONDS',
    ],
    [
      { ...base, OIDC_AUTHORITY: 'https://idp.example.org', OIDC_CLIENT_ID: 'x', OIDC_HTTP_TIMEOUT_SECONDS: 'soon' },
      'OIDC_HTTP_TIMEOUT_SECONDS',
    ],
    [{ ...base, TLS_CERT_FILE: '/nonexistent.pem' }, 'TLS_KEY_FILE'],
    [{ ...base, TLS_CERT_FILE: '/nonexistent.pem', TLS_KEY_FILE: '/nonexistent.key' }, 'TLS_CERT_FILE'],
    [{ ...base, MERIDIAN_BODY_LIMIT: 'lots' }, 'MERIDIAN_BODY_LIMIT'],
    [{ ...base, MERIDIAN_WORKER_CONCURRENCY: '0' }, 'MERIDIAN_WORKER_CONCURRENCY'],
    [{ ...base, MERIDIAN_TRUST_PROXY: 'maybe' }, 'MERIDIAN_TRUST_PROXY'],
    [{ ...base, MERIDIAN_REDIS_PREFIX: 'has space' }, 'MERIDIAN_REDIS_PREFIX'],
  ])('stops on %p with one line naming %s', (env, variable) => {
    expect(problem(env as Record<string, string>)).toMatch(new RegExp(`^Configuration error: ${variable} `));
  });
});
