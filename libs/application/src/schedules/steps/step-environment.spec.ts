import { INHERITED_ENVIRONMENT, stepEnvironment } from './step-environment';

const context = {
  scheduleId: 'a1',
  scheduleName: 'Nightly',
  executionId: 'e1',
  stepIndex: 2,
  stepName: 'HR import',
  scriptsRoot: '/srv/scripts',
};

describe('stepEnvironment', () => {
  const host = {
    PATH: '/opt/bin:/usr/bin',
    HOME: '/home/meridian',
    LANG: 'en_GB.UTF-8',
    TZ: 'Europe/London',
    DATABASE_URL: 'postgres://meridian:secret@db/meridian',
    REDIS_URL: 'redis://:pw@redis:6379',
    MERIDIAN_ENCRYPTION_KEY: 'c2VjcmV0LWtleS1zZWNyZXQta2V5LXNlY3JldC1rZXk=',
    MERIDIAN_ENCRYPTION_KEY_FILE: '/run/secrets/key',
    MERIDIAN_BOOTSTRAP_API_KEY: 'mer_bootstrap_secret_value_that_is_long',
    OIDC_CLIENT_ID: 'meridian',
    OIDC_AUTHORITY: 'https://idp.example.org',
    AWS_SECRET_ACCESS_KEY: 'abc',
    NODE_OPTIONS: '--require /tmp/evil.js',
    LD_PRELOAD: '/tmp/evil.so',
  };

  it('passes only the allow-listed host variables and the run context', () => {
    expect(stepEnvironment(host, context)).toEqual({
      PATH: '/opt/bin:/usr/bin',
      HOME: '/home/meridian',
      LANG: 'en_GB.UTF-8',
      TZ: 'Europe/London',
      MERIDIAN_SCHEDULE_ID: 'a1',
      MERIDIAN_SCHEDULE_NAME: 'Nightly',
      MERIDIAN_SCHEDULE_EXECUTION_ID: 'e1',
      MERIDIAN_SCHEDULE_STEP_INDEX: '2',
      MERIDIAN_SCHEDULE_STEP_NAME: 'HR import',
      MERIDIAN_SCHEDULE_SCRIPTS_ROOT: '/srv/scripts',
    });
  });

  it('never passes a secret, whatever the host has', () => {
    const env = stepEnvironment(host, context);
    const text = JSON.stringify(env);
    for (const secret of ['secret', 'pw@', 'c2VjcmV0', 'mer_bootstrap', 'idp.example.org', 'evil']) expect(text).not.toContain(secret);
    expect(
      Object.keys(env)
        .filter((k) => !k.startsWith('MERIDIAN_SCHEDULE_'))
        .every((k) => (INHERITED_ENVIRONMENT as readonly string[]).includes(k)),
    ).toBe(true);
  });

  it('gives a default PATH and strips NUL characters from names', () => {
    const env = stepEnvironment({}, { ...context, scheduleName: 'a\0b', stepName: 'c\0d' });
    expect(env.PATH).toBe('/usr/local/bin:/usr/bin:/bin');
    expect(env.HOME).toBeUndefined();
    expect(env.MERIDIAN_SCHEDULE_NAME).toBe('ab');
    expect(env.MERIDIAN_SCHEDULE_STEP_NAME).toBe('cd');
  });
});
