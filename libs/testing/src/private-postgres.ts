import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A TCP port that was free a moment ago. */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The directory holding initdb, pg_ctl and postgres: MERIDIAN_TEST_PG_BIN, /usr/local/bin, then the newest /usr/lib/postgresql/<v>/bin. */
function postgresBinDir(): string {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(dir, b)));
  const candidates = [process.env.MERIDIAN_TEST_PG_BIN, '/usr/local/bin'];
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  const found = candidates.find((d): d is string => !!d && has(d));
  if (!found) throw new Error('PostgreSQL server binaries (initdb, pg_ctl, postgres) not found; set MERIDIAN_TEST_PG_BIN.');
  return found;
}

const live = new Set<PrivatePostgres>();
let exitHookInstalled = false;

/**
 * A PostgreSQL cluster of its own for tests that stop and start the database under a running service
 * (never the machine's shared server). initdb into a temporary directory, trust authentication, one
 * free port on 127.0.0.1. Running as root, the server runs as the `postgres` user (PostgreSQL refuses
 * root). The cluster is stopped and removed by `destroy()`, and at process exit if a test forgot.
 */
export class PrivatePostgres {
  readonly url: string;
  private running = false;

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
    private readonly asUser: string[],
  ) {
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  /** Creates and starts a cluster. */
  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBinDir();
    const dir = mkdtempSync(join(tmpdir(), 'meridian-pg-'));
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    const asUser = root ? ['runuser', '-u', 'postgres', '--'] : [];
    if (root) {
      const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
      const gids = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
      if (ids.status !== 0) throw new Error('Running as root needs a "postgres" user to run the test cluster.');
      chownSync(dir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
    }
    chmodSync(dir, 0o700);
    const pg = new PrivatePostgres(await freeTcpPort(), dir, bin, asUser);
    live.add(pg);
    installExitHook();
    try {
      pg.run('initdb', ['-D', pg.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
      pg.startServer();
    } catch (e) {
      pg.destroy();
      throw e;
    }
    return pg;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  private run(tool: string, args: string[]): string {
    const [cmd, ...prefix] = this.asUser.length ? this.asUser : [join(this.bin, tool)];
    const fullArgs = this.asUser.length ? [...prefix, join(this.bin, tool), ...args] : args;
    try {
      return execFileSync(cmd, fullArgs, { cwd: this.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      const err = e as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${tool} ${args.join(' ')} failed: ${err.stderr || err.stdout || err.message}`);
    }
  }

  private startServer(): void {
    const sockets = join(this.dir, 'sockets');
    if (!existsSync(sockets)) {
      mkdirSync(sockets);
      if (this.asUser.length) spawnSync('chown', ['postgres', sockets]);
    }
    const options = [
      `-p ${this.port}`,
      `-k ${sockets}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=60',
    ].join(' ');
    this.run('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', join(this.dir, 'server.log'), '-w', '-t', '30', 'start']);
    this.running = true;
  }

  /** Stops the server the way an operator does (`pg_ctl stop -m fast`: sessions are terminated). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.run('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
    this.running = false;
  }

  /** Starts the stopped server again on the same port with the same data. */
  async start(): Promise<void> {
    if (this.running) return;
    this.startServer();
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Stops the server at once and removes its directory (idempotent; also runs at process exit). */
  destroy(): void {
    live.delete(this);
    if (this.running) {
      try {
        this.run('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      } catch {
        // already gone
      }
      this.running = false;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pg of [...live]) pg.destroy();
  });
}
