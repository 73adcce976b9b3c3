// Dockerfile, .dockerignore, docker/entrypoint.sh and docker/healthcheck.js. Docker cannot run
// here, so the Dockerfile is checked structurally; the two scripts are run for real.
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { builtinModules } from 'node:module';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeRun, ENTRY_FILES, PROCESSES, readRepoFile, repoPath, run } from './support';

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}
interface Stage {
  base: string;
  name: string | null;
  instructions: Instruction[];
}

/** Minimal Dockerfile reader: comments, line continuations, ARG defaults in FROM, stages. */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let buffer = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (!buffer && /^\s*#/.test(line)) return;
    if (buffer && /^\s*#/.test(line)) return; // comment inside a continuation
    if (!buffer) start = i + 1;
    if (/\\\s*$/.test(line)) {
      buffer += `${line.replace(/\\\s*$/, '')} `;
      return;
    }
    buffer += line;
    const m = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(buffer);
    if (m) instructions.push({ keyword: m[1].toUpperCase(), args: m[2].trim().replace(/\s+/g, ' '), line: start });
    buffer = '';
  });
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args)!;
      const base = m[1].replace(/\$\{?(\w+)\}?/g, (_all, name: string) => args[name] ?? `<unset ${name}>`);
      stages.push({ base, name: m[2] ?? null, instructions: [] });
    } else if (stages.length === 0 && ins.keyword === 'ARG') {
      const [name, value = ''] = ins.args.split('=');
      args[name] = value;
    } else if (stages.length) {
      stages[stages.length - 1].instructions.push(ins);
    }
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(readRepoFile('Dockerfile'));
const [build, runtime] = dockerfile.stages;
const all = (stage: Stage, keyword: string): Instruction[] => stage.instructions.filter((i) => i.keyword === keyword);
const runText = (stage: Stage): string =>
  all(stage, 'RUN')
    .map((i) => i.args)
    .join('\n');
const jsonArray = (s: string): string[] => JSON.parse(s) as string[];

describe('Dockerfile', () => {
  it('has a build stage and a runtime stage, both on node:24-bookworm-slim', () => {
    expect(dockerfile.stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    expect(build.base).toBe('node:24-bookworm-slim');
    expect(runtime.base).toBe('node:24-bookworm-slim');
  });

  it('ships a Node.js major that package.json engines supports', () => {
    const major = /^node:(\d+)-/.exec(runtime.base)?.[1];
    const engines = JSON.parse(readRepoFile('package.json')).engines.node as string;
    expect(engines.split('||').map((range) => /\^(\d+)\./.exec(range.trim())?.[1])).toContain(major);
  });

  it('builds with the pnpm of package.json, the frozen lockfile and nx', () => {
    const pnpm = JSON.parse(readRepoFile('package.json')).packageManager as string;
    const text = runText(build);
    expect(text).toContain(`npm i -g ${pnpm}`);
    expect(text).toMatch(/pnpm install --frozen-lockfile/);
    expect(text).toMatch(/pnpm exec nx run-many -t build/);
    expect(text).toMatch(/pnpm install --prod --frozen-lockfile/);
  });

  it('copies only what the build needs from the context, and those files exist', () => {
    for (const copy of all(build, 'COPY')) {
      const parts = copy.args.split(' ').filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        if (source === '.') continue;
        expect({ source, exists: existsSync(repoPath(source)) }).toEqual({ source, exists: true });
      }
    }
    expect(all(build, 'COPY').map((c) => c.args)).toContain('pnpm-lock.yaml pnpm-workspace.yaml package.json ./');
  });

  it('puts every entry point and the scripts into the runtime copy', () => {
    const text = runText(build);
    for (const file of [
      'apps/web/dist/main.js',
      'apps/worker/dist/main.js',
      'apps/scheduler/dist/main.js',
      'libs/persistence/dist/index.js',
    ]) {
      expect(text).toContain(`/out/${file}`);
    }
    expect(text).toContain('cp tools/migrate.js /out/tools/migrate.js');
    expect(text).toContain('cp docker/entrypoint.sh docker/healthcheck.js /out/docker/');
  });

  it('the runtime stage holds only the pruned copy from the build stage, owned by root', () => {
    const copies = all(runtime, 'COPY');
    expect(copies.map((c) => c.args)).toEqual(['--from=build /out /app']);
    expect(runText(runtime)).not.toMatch(/pnpm|npm (i|install)|nx /);
  });

  it('runs as the non-root user 10001', () => {
    const users = all(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const last = users[users.length - 1].args;
    expect(last).toBe('10001:10001');
    expect(last).not.toMatch(/^(0|root)(:|$)/);
    expect(runText(runtime)).toMatch(/useradd .*--uid 10001/);
    // USER comes after the last RUN, so nothing after it runs as root.
    const lastRun = Math.max(...all(runtime, 'RUN').map((i) => i.line));
    expect(users[users.length - 1].line).toBeGreaterThan(lastRun);
  });

  it('starts through tini and docker/entrypoint.sh, web by default', () => {
    expect(runText(runtime)).toMatch(/apt-get install -y --no-install-recommends tini/);
    expect(jsonArray(all(runtime, 'ENTRYPOINT')[0].args)).toEqual(['/usr/bin/tini', '--', '/app/docker/entrypoint.sh']);
    expect(jsonArray(all(runtime, 'CMD')[0].args)).toEqual(['web']);
  });

  it('has a HEALTHCHECK that uses node (no curl in the slim image)', () => {
    const [healthcheck] = all(runtime, 'HEALTHCHECK');
    expect(healthcheck).toBeDefined();
    const cmd = jsonArray(healthcheck.args.slice(healthcheck.args.indexOf('CMD') + 3).trim());
    expect(cmd).toEqual(['node', '/app/docker/healthcheck.js']);
    expect(healthcheck.args).not.toMatch(/curl|wget/);
  });

  it('sets the writable paths outside /app and exposes 8080', () => {
    const env = all(runtime, 'ENV')
      .map((e) => e.args)
      .join(' ');
    expect(env).toMatch(/MERIDIAN_LOG_DIR=\/var\/log\/meridian/);
    expect(env).toMatch(/NODE_ENV=production/);
    expect(all(runtime, 'EXPOSE').map((e) => e.args)).toEqual(['8080']);
  });
});

/** .dockerignore semantics, simplified: `*`, `**`, `?`, `!` exceptions, a match excludes the subtree. */
function dockerignored(path: string, patterns: string[]): boolean {
  const toRegex = (p: string): RegExp =>
    new RegExp(
      `^${p
        .replace(/^\/+/, '')
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\/?/g, '@@GLOBSTAR@@')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        .replace(/@@GLOBSTAR@@/g, '(?:.*/)?')}$`,
    );
  const prefixes = path.split('/').map((_s, i, parts) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const pattern of patterns) {
    const negate = pattern.startsWith('!');
    const re = toRegex(negate ? pattern.slice(1) : pattern);
    if (prefixes.some((p) => re.test(p))) ignored = !negate;
  }
  return ignored;
}

describe('.dockerignore', () => {
  const patterns = readRepoFile('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('keeps local installs, build output, git metadata and secrets out of the build context', () => {
    for (const p of [
      'node_modules/x',
      'apps/web/node_modules/x',
      'apps/web/dist/main.js',
      '.git/HEAD',
      '.env',
      '.env.local',
      'reports/x.json',
      'logs/web.log',
      '.nx/cache',
    ]) {
      expect({ p, ignored: dockerignored(p, patterns) }).toEqual({ p, ignored: true });
    }
  });

  it('keeps everything the build needs', () => {
    const needed = [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'nx.json',
      'tsconfig.base.json',
      'apps/web/package.json',
      'apps/web/src/main.ts',
      'libs/persistence/src/index.ts',
      'tools/migrate.js',
      'docker/entrypoint.sh',
      'docker/healthcheck.js',
      'apps/web/tsconfig.build.json',
    ];
    for (const p of needed) expect({ p, ignored: dockerignored(p, patterns) }).toEqual({ p, ignored: false });
  });

  it('keeps every source and config file of every workspace project (e.g. a src/logs folder)', () => {
    const files: string[] = [];
    const walk = (rel: string): void => {
      for (const entry of readdirSync(repoPath(rel), { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'coverage') continue;
        const child = `${rel}/${entry.name}`;
        if (entry.isDirectory()) walk(child);
        else files.push(child);
      }
    };
    for (const top of ['apps', 'libs', 'tools']) if (existsSync(repoPath(top))) walk(top);
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => dockerignored(f, patterns))).toEqual([]);
  });

  it('the matcher understands the patterns (sanity check)', () => {
    expect(dockerignored('a/logs/x.ts', ['**/logs'])).toBe(true);
    expect(dockerignored('a/logs/x.ts', ['logs'])).toBe(false);
    expect(dockerignored('.env.example', ['.env.*', '!.env.example'])).toBe(false);
  });
});

describe('entry points', () => {
  it('every process the image offers exists in the repository (source or script) and is built to the path the entrypoint runs', () => {
    for (const name of ['web', 'worker', 'scheduler'] as const) {
      const pkg = JSON.parse(readRepoFile('apps', name, 'package.json'));
      expect(pkg.main).toBe('dist/main.js');
      expect(pkg.scripts.build).toMatch(/tsc -p tsconfig\.build\.json/);
      const tsconfig = readRepoFile('apps', name, 'tsconfig.build.json');
      expect(tsconfig).toMatch(/"outDir":\s*"dist"/);
      expect(tsconfig).toMatch(/"rootDir":\s*"src"/);
      expect(`apps/${name}/${pkg.main}`).toBe(ENTRY_FILES[name]);
    }
    // `npm run migrate` prepares the checkout (dependencies, libs/persistence built), then runs the image's file.
    expect(JSON.parse(readRepoFile('package.json')).scripts.migrate.split(' && ').at(-1)).toBe(`node ${ENTRY_FILES.migrate}`);
  });

  it('tools/migrate.js exists and needs only production dependencies of the root package', () => {
    expect(existsSync(repoPath(ENTRY_FILES.migrate))).toBe(true);
    // The image has `pnpm install --prod`: a root devDependency would be missing at run time.
    const source = readRepoFile(ENTRY_FILES.migrate);
    const bare = [...source.matchAll(/require\(\s*['"]([^'"./][^'"]*)['"]\s*\)/g)]
      .map((m) => m[1])
      .filter((name) => !name.startsWith('node:') && !builtinModules.includes(name))
      .map((name) => (name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]));
    const dependencies = Object.keys(JSON.parse(readRepoFile('package.json')).dependencies ?? {});
    expect(bare.filter((name) => !dependencies.includes(name))).toEqual([]);
  });

  it('docker/entrypoint.sh and docker/healthcheck.js exist, are executable and parse', () => {
    for (const f of ['docker/entrypoint.sh', 'docker/healthcheck.js']) {
      expect(statSync(repoPath(f)).mode & 0o111).not.toBe(0);
    }
    const sh = run('sh', ['-n', repoPath('docker/entrypoint.sh')]);
    expect(sh.status === 0 ? '' : describeRun(sh)).toBe('');
    const node = run(process.execPath, ['--check', repoPath('docker/healthcheck.js')]);
    expect(node.status === 0 ? '' : describeRun(node)).toBe('');
    expect(readFileSync(repoPath('docker/entrypoint.sh'), 'utf8')).not.toContain('\r');
  });
});

describe('docker/entrypoint.sh (run against stub entry files)', () => {
  let root: string;

  beforeAll(() => {
    // The image layout in miniature: <root>/docker/entrypoint.sh next to <root>/apps/... and <root>/tools/...
    root = mkdtempSync(join(tmpdir(), 'entrypoint-'));
    mkdirSync(join(root, 'docker'));
    copyFileSync(repoPath('docker/entrypoint.sh'), join(root, 'docker/entrypoint.sh'));
    chmodSync(join(root, 'docker/entrypoint.sh'), 0o755);
    for (const [name, file] of Object.entries(ENTRY_FILES)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(
        join(root, file),
        `process.stdout.write(JSON.stringify({ name: ${JSON.stringify(name)}, args: process.argv.slice(2), cwd: process.cwd(), pid: process.pid }));\n`,
      );
    }
  });

  const start = (args: string[]): Promise<{ code: number | null; out: string; pid: number | undefined }> =>
    new Promise((resolve, reject) => {
      // From another directory: the script must find the app root itself.
      const child = spawn('sh', [join(root, 'docker/entrypoint.sh'), ...args], { cwd: tmpdir() });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out, pid: child.pid }));
    });

  it.each(PROCESSES)('`%s` runs its entry file with node, as the same process (exec), from the app root', async (name) => {
    const r = await start([name, '--flag']);
    expect(r.code).toBe(0);
    const got = JSON.parse(r.out);
    expect(got).toMatchObject({ name, args: ['--flag'], cwd: root });
    expect(got.pid).toBe(r.pid); // exec: signals from tini reach node directly
  });

  it('runs web when no process is named', async () => {
    const r = await start([]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).name).toBe('web');
  });

  it('executes any other command as given', async () => {
    const r = await start(['echo', 'hello']);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe('hello');
  });
});

describe('docker/healthcheck.js', () => {
  const script = repoPath('docker/healthcheck.js');
  let server: Server;
  let status = 200;
  let lastPath = '';
  let port: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      lastPath = req.url ?? '';
      res.writeHead(req.url === '/api/v1/health/live' ? status : 404, { 'content-type': 'application/json' });
      res.end('{"status":"alive"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const check = (args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script, ...args], {
        env: { PATH: process.env.PATH ?? '', MERIDIAN_HEALTHCHECK_TIMEOUT_MS: '2000', ...env },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });

  it('web: healthy when GET /api/v1/health/live on PORT answers 200', async () => {
    status = 200;
    const r = await check(['web'], { PORT: String(port) });
    expect(lastPath).toBe('/api/v1/health/live');
    expect(r).toMatchObject({ code: 0 });
  });

  it('web: unhealthy on any other status', async () => {
    status = 503;
    expect(await check(['web'], { PORT: String(port) })).toMatchObject({ code: 1 });
  });

  it('web: unhealthy when nothing listens', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    expect(await check(['web'], { PORT: String(freePort) })).toMatchObject({ code: 1 });
  });

  it('rejects an unknown process name', async () => {
    expect(await check(['bogus'])).toMatchObject({ code: 1 });
  });

  it('migrate: always healthy', async () => {
    expect(await check(['migrate'])).toMatchObject({ code: 0 });
  });

  (existsSync('/proc/self/stat') ? it : it.skip)('worker: healthy while a node process runs apps/worker/dist/main.js', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hc-worker-'));
    mkdirSync(join(root, 'apps/worker/dist'), { recursive: true });
    writeFileSync(join(root, 'apps/worker/dist/main.js'), 'setInterval(() => {}, 1000);\n');
    const worker: ChildProcess = spawn(process.execPath, ['apps/worker/dist/main.js'], { cwd: root, stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const r = await check(['worker']);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/worker pid \d+ state [RSDI]/);
    } finally {
      worker.kill('SIGKILL');
    }
  });
});
