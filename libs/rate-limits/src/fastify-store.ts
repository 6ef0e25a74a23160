import type { WindowHit } from './store';

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** What counts a request against a rule's `max` per window: a RateLimitStore, or LocalFirstWindows over one. */
export interface WindowCounter {
  hit(key: string, windowMs: number, max: number): WindowHit | Promise<WindowHit>;
}

/**
 * The store interface of @fastify/rate-limit (incr + child) over a WindowCounter.
 *
 * @fastify/rate-limit's own `redis` option expects an ioredis client: it calls
 * `redis.defineCommand()` and then `redis.rateLimit(key, ..., callback)`, neither of which
 * node-redis v6 (the Redis client of this repository) has. This adapter lets the plugin
 * count in our RedisRateLimitStore (or MemoryRateLimitStore) instead; the plugin still does
 * the rest (key generation, allow lists, the counting decision).
 */
export function fastifyRateLimitStore(counter: WindowCounter) {
  // The plugin constructs the store with its global settings (`new Store(settings)`), which
  // this adapter does not need: the backend is ours.
  return class FastifyRateLimitStoreAdapter {
    incr(key: string, callback: IncrCallback, timeWindow: number, max: number): void {
      const hit = counter.hit(key, timeWindow, max);
      if (!(hit instanceof Promise)) return callback(null, { current: hit.count, ttl: hit.resetInMs });
      hit.then(
        (answer) => callback(null, { current: answer.count, ttl: answer.resetInMs }),
        (error: Error) => callback(error),
      );
    }

    /** Keys already carry the rule's name (see registerRateLimits), so one store serves every rule. */
    child(): FastifyRateLimitStoreAdapter {
      return this;
    }
  };
}
