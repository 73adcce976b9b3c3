import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { TEST_REDIS_URL } from './test-database';

export interface TestEnvironment {
  env: Record<string, string>;
  bootstrapKey: string;
  redisPrefix: string;
  logDir: string;
  cleanup(): Promise<void>;
}

/** Environment for one test suite: its own database URL, Redis prefix, log directory and keys. */
export function createTestEnvironment(databaseUrl: string, overrides: Record<string, string> = {}): TestEnvironment {
  const bootstrapKey = `mer_${randomBytes(32).toString('base64url')}`;
  const redisPrefix = `meridian-test-${randomBytes(6).toString('hex')}`;
  const logDir = mkdtempSync(join(tmpdir(), 'meridian-logs-'));
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    MERIDIAN_REDIS_PREFIX: redisPrefix,
    MERIDIAN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    MERIDIAN_BOOTSTRAP_API_KEY: bootstrapKey,
    MERIDIAN_LOG_DIR: logDir,
    MERIDIAN_LOG_CONSOLE: 'false',
    MERIDIAN_LOG_LEVEL: 'Debug',
    PORT: '0',
    MERIDIAN_HOST: '127.0.0.1',
    ...overrides,
  };
  return {
    env,
    bootstrapKey,
    redisPrefix,
    logDir,
    cleanup: async () => {
      await deleteRedisPrefix(redisPrefix);
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** Removes every Redis key under a prefix (queues of one test suite). */
export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Polls `check` until it returns a truthy value or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
