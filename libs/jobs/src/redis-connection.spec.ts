import { REDIS_MAX_RECONNECT_DELAY_MS, redisConnection, redisReconnectDelay } from './redis-connection';

describe('redisConnection', () => {
  it('reconnects 200 ms later each attempt, never more than a second apart however long Redis is away', () => {
    expect([1, 2, 3, 4, 5, 6, 50, 10_000].map(redisReconnectDelay)).toEqual([200, 400, 600, 800, 1000, 1000, 1000, 1000]);
    expect(REDIS_MAX_RECONNECT_DELAY_MS).toBe(1000);
  });

  it('uses that reconnection delay unless told otherwise, with the URL and the extra options', () => {
    const options = redisConnection('redis://127.0.0.1:6379/2', { maxRetriesPerRequest: null });
    expect(options).toMatchObject({ url: 'redis://127.0.0.1:6379/2', maxRetriesPerRequest: null });
    expect(options.retryStrategy?.(12)).toBe(1000);
  });
});
