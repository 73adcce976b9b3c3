import type { RedisOptions } from 'bullmq';

/** BullMQ connection options for a `redis://` or `rediss://` URL (user, password, database, TLS). */
export function redisConnection(redisUrl: string, extra: RedisOptions = {}): RedisOptions {
  return { url: redisUrl, ...extra };
}
