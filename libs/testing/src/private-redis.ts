import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import Redis from 'ioredis';
import { freeTcpPort } from './private-postgres';

const live = new Set<PrivateRedis>();
let exitHookInstalled = false;

/** Resolves once something accepts TCP connections on the port. */
async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`Redis did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A Redis server of its own for tests that stop and start Redis under a running service (never the
 * machine's shared one): `redis-server` as a child process on a free port, no persistence. Stopped
 * and removed by `destroy()`, and at process exit if a test forgot.
 */
export class PrivateRedis {
  readonly url: string;
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {
    this.url = `redis://127.0.0.1:${port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freeTcpPort(), mkdtempSync(join(tmpdir(), 'meridian-redis-')));
    live.add(redis);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', () => {
        for (const r of [...live]) r.destroy();
      });
    }
    try {
      await redis.start();
    } catch (e) {
      redis.destroy();
      throw e;
    }
    return redis;
  }

  /** Starts the server (again) on the same port, empty: nothing in Redis is the only copy of anything. */
  async start(): Promise<void> {
    if (this.child) return;
    const child = spawn(
      process.env.MERIDIAN_TEST_REDIS_SERVER ?? 'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (d) => (this.output += String(d)));
    child.stderr?.on('data', (d) => (this.output += String(d)));
    this.child = child;
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${this.output.slice(-500)}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForPort(this.port, 10_000), exited]);
  }

  /** Stops the server (SIGTERM) and waits until it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  get isRunning(): boolean {
    return this.child !== null;
  }

  /** The keys matching a pattern (what the queues have written). */
  async keys(pattern: string): Promise<string[]> {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    try {
      return await client.keys(pattern);
    } finally {
      client.disconnect();
    }
  }

  /** Kills the server and removes its directory (idempotent; also runs at process exit). */
  destroy(): void {
    live.delete(this);
    if (this.child && this.child.exitCode === null) this.child.kill('SIGKILL');
    this.child = null;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
