import type { RedisOptions } from 'bullmq';

/** The longest wait between two reconnection attempts to Redis. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 1000;

/**
 * How long to wait before reconnection attempt `attempt` (1-based): 200 ms more each time, never more
 * than a second, so jobs flow again within about a second of Redis answering however long it was away
 * (ioredis and BullMQ would otherwise back off to 20 s).
 */
export function redisReconnectDelay(attempt: number): number {
  return Math.min(200 * Math.max(attempt, 1), REDIS_MAX_RECONNECT_DELAY_MS);
}

/** BullMQ connection options for a `redis://` or `rediss://` URL (user, password, database, TLS). */
export function redisConnection(redisUrl: string, extra: RedisOptions = {}): RedisOptions {
  return { url: redisUrl, retryStrategy: redisReconnectDelay, ...extra };
}
