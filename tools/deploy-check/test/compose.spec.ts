// docker-compose.yml and .env.example: parsed with `yaml` always; validated by docker-compose 1.29.2
// (`config -q`, no engine needed) when the binary is installed. CI installs it (apt docker-compose).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIG_VARIABLES, describeRun, loadYaml, Obj, readRepoFile, repoPath, run, SECRET_VARIABLES, which } from './support';

const compose = loadYaml('docker-compose.yml');
const services = compose.services as Record<string, Obj>;
const MERIDIAN = ['migrate', 'web', 'worker', 'scheduler'];
const LONG_RUNNING = ['web', 'worker', 'scheduler'];

describe('docker-compose.yml (parsed)', () => {
  it('keeps to the classic file format docker-compose 1.29.2 knows', () => {
    expect(compose.version).toBe('3.8');
    for (const key of Object.keys(compose))
      expect([
        'version',
        'services',
        'volumes',
        'networks',
        'x-meridian-image',
        'x-meridian-environment',
        'x-meridian-hardening',
      ]).toContain(key);
  });

  it('has postgres, redis, migrate, web, worker and scheduler', () => {
    expect(Object.keys(services).sort()).toEqual(['migrate', 'postgres', 'redis', 'scheduler', 'web', 'worker']);
  });

  it('runs PostgreSQL 16 with a pg_isready healthcheck and a named volume', () => {
    const pg = services.postgres;
    expect(pg.image).toBe('postgres:16-alpine');
    expect(pg.healthcheck.test.join(' ')).toMatch(/pg_isready/);
    expect(pg.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(pg.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('runs Redis 7 with a ping healthcheck, a named volume and the eviction policy BullMQ needs', () => {
    const redis = services.redis;
    expect(redis.image).toBe('redis:7-alpine');
    expect(redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(redis.volumes).toContain('redis-data:/data');
    expect(redis.command.join(' ')).toMatch(/--maxmemory-policy noeviction/);
  });

  it('builds and runs one image for the four Meridian processes', () => {
    const images = new Set(MERIDIAN.map((s) => services[s].image));
    expect(images.size).toBe(1);
    for (const s of MERIDIAN) {
      expect(services[s].build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
      expect(services[s].command).toEqual([s]);
    }
  });

  it('migrate runs once after PostgreSQL is healthy', () => {
    expect(services.migrate.restart).toBe('no');
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it.each(LONG_RUNNING)('%s starts after migrate completed successfully and PostgreSQL and Redis are healthy', (name) => {
    expect(services[name].depends_on).toMatchObject({
      migrate: { condition: 'service_completed_successfully' },
      redis: { condition: 'service_healthy' },
      postgres: { condition: 'service_healthy' },
    });
    expect(services[name].restart).toBe('unless-stopped');
  });

  it.each(LONG_RUNNING)('%s has a healthcheck through docker/healthcheck.js for itself', (name) => {
    expect(services[name].healthcheck.test).toEqual(['CMD', 'node', '/app/docker/healthcheck.js', name]);
  });

  it('publishes the web port 8080', () => {
    expect(services.web.ports).toEqual(['${MERIDIAN_HTTP_PORT:-8080}:8080']);
    expect(services.web.environment.PORT).toBe('8080');
  });

  it('shares the log volume between web, worker and scheduler at MERIDIAN_LOG_DIR', () => {
    for (const name of LONG_RUNNING) {
      expect(services[name].environment.MERIDIAN_LOG_DIR).toBe('/var/log/meridian');
      expect(services[name].volumes).toContain('meridian-logs:/var/log/meridian');
    }
  });

  it('declares every named volume it uses', () => {
    const declared = Object.keys(compose.volumes ?? {});
    for (const [name, service] of Object.entries(services)) {
      for (const v of (service.volumes ?? []) as string[]) {
        const source = v.split(':')[0];
        if (!source.startsWith('.') && !source.startsWith('/'))
          expect({ name, source, declared: declared.includes(source) }).toEqual({ name, source, declared: true });
      }
    }
  });

  it('runs the Meridian containers read-only, without capabilities', () => {
    for (const s of MERIDIAN) {
      expect(services[s].read_only).toBe(true);
      expect(services[s].cap_drop).toEqual(['ALL']);
      expect(services[s].tmpfs).toContain('/tmp');
    }
  });

  it('passes every configuration variable to every Meridian process, secrets only by reference', () => {
    for (const s of MERIDIAN) {
      const env = services[s].environment as Record<string, string>;
      const missing = CONFIG_VARIABLES.filter((v) => !(v in env) && v !== 'MERIDIAN_ENCRYPTION_KEY_FILE');
      expect({ s, missing }).toEqual({ s, missing: [] });
      for (const key of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(key);
      expect(env.MERIDIAN_ENCRYPTION_KEY).toMatch(/^\$\{MERIDIAN_ENCRYPTION_KEY:\?[^}]+\}$/);
      expect(env.MERIDIAN_BOOTSTRAP_API_KEY).toBe('${MERIDIAN_BOOTSTRAP_API_KEY:-}');
      expect(env.DATABASE_URL).toContain('${POSTGRES_PASSWORD:?');
    }
  });
});

describe('.env.example', () => {
  const text = readRepoFile('.env.example');
  const assigned = new Map(
    text
      .split('\n')
      .filter((l) => /^[A-Z0-9_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

  it('documents every configuration variable', () => {
    expect(CONFIG_VARIABLES.filter((v) => !new RegExp(`\\b${v}\\b`).test(text))).toEqual([]);
  });

  it('assigns every variable docker-compose.yml interpolates', () => {
    const raw = readRepoFile('docker-compose.yml');
    const used = new Set([...raw.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]));
    expect([...used].filter((v) => !assigned.has(v))).toEqual([]);
  });

  it('contains no secret values, only empty placeholders', () => {
    for (const v of ['POSTGRES_PASSWORD', ...SECRET_VARIABLES.filter((s) => assigned.has(s))])
      expect({ v, value: assigned.get(v) }).toEqual({ v, value: '' });
  });
});

const dockerCompose = which('docker-compose');
const composeNote =
  'docker-compose (apt package docker-compose, 1.29.2) is not installed: it validates docker-compose.yml offline (STACK.md §12); install it with `apt-get install -y docker-compose`';
if (!dockerCompose && !process.env.CI) console.warn(`deploy-check: skipping the docker-compose CLI checks. ${composeNote}.`);

// Runs whenever the binary exists; in CI (CI set) a missing binary is a failure, not a skip.
(dockerCompose || process.env.CI ? describe : describe.skip)('docker-compose config (CLI)', () => {
  const emptyEnvFile = (): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'compose-env-')), 'empty.env');
    writeFileSync(file, '');
    return file;
  };
  // Only what we pass: no developer .env, no inherited POSTGRES_PASSWORD etc.
  const env = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(POSTGRES_|MERIDIAN_|OIDC_|TLS_|COMPOSE_)/.test(k)));
    return { ...base, ...extra };
  };
  const composeRun = (args: string[], envFile: string, extra: Record<string, string>) => {
    if (!dockerCompose) throw new Error(`${composeNote}; CI must install it.`);
    return run(dockerCompose, ['--env-file', envFile, '-f', repoPath('docker-compose.yml'), ...args], { env: env(extra) });
  };
  const secrets = { POSTGRES_PASSWORD: 'test-password', MERIDIAN_ENCRYPTION_KEY: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' };

  it('`config -q` accepts the file when the required values are set', () => {
    const r = composeRun(['config', '-q'], emptyEnvFile(), secrets);
    expect(r.status === 0 ? '' : describeRun(r)).toBe('');
  });

  it('lists the six services', () => {
    const r = composeRun(['config', '--services'], emptyEnvFile(), secrets);
    expect(r.status === 0 ? '' : describeRun(r)).toBe('');
    expect(r.stdout.trim().split('\n').sort()).toEqual(['migrate', 'postgres', 'redis', 'scheduler', 'web', 'worker']);
  });

  it('refuses to run without MERIDIAN_ENCRYPTION_KEY, naming it', () => {
    const r = composeRun(['config', '-q'], emptyEnvFile(), { POSTGRES_PASSWORD: 'test-password' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/MERIDIAN_ENCRYPTION_KEY/);
  });

  it('refuses the unfilled .env.example (placeholders must be filled in)', () => {
    const r = composeRun(['config', '-q'], repoPath('.env.example'), {});
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/POSTGRES_PASSWORD|MERIDIAN_ENCRYPTION_KEY/);
  });

  it('accepts .env.example once the two secrets are filled in', () => {
    const filled = readRepoFile('.env.example')
      .replace(/^POSTGRES_PASSWORD=$/m, `POSTGRES_PASSWORD=${secrets.POSTGRES_PASSWORD}`)
      .replace(/^MERIDIAN_ENCRYPTION_KEY=$/m, `MERIDIAN_ENCRYPTION_KEY=${secrets.MERIDIAN_ENCRYPTION_KEY}`);
    const file = join(mkdtempSync(join(tmpdir(), 'compose-env-')), '.env');
    writeFileSync(file, filled);
    const r = composeRun(['config'], file, {});
    expect(r.status === 0 ? '' : describeRun(r)).toBe('');
    expect(r.stdout).toContain(`postgres://meridian:${secrets.POSTGRES_PASSWORD}@postgres:5432/meridian`);
  });
});
