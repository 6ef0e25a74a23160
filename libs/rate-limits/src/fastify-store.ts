import type { RateLimitStore } from './store';

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * The store interface of @fastify/rate-limit (incr + child) over a RateLimitStore.
 *
 * @fastify/rate-limit's own `redis` option expects an ioredis client: it calls
 * `redis.defineCommand()` and then `redis.rateLimit(key, ..., callback)`, neither of which
 * node-redis v6 (the Redis client of this repository) has. This adapter lets the plugin
 * count in our RedisRateLimitStore (or MemoryRateLimitStore) instead; the plugin still does
 * the rest (key generation, allow lists, the counting decision).
 */
export function fastifyRateLimitStore(store: RateLimitStore) {
  // The plugin constructs the store with its global settings (`new Store(settings)`), which
  // this adapter does not need: the backend is ours.
  return class FastifyRateLimitStoreAdapter {
    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      store.hit(key, timeWindow).then(
        (hit) => callback(null, { current: hit.count, ttl: hit.resetInMs }),
        (error: Error) => callback(error),
      );
    }

    /** Keys already carry the rule's name (see registerRateLimits), so one store serves every rule. */
    child(): FastifyRateLimitStoreAdapter {
      return this;
    }
  };
}
