export { type Admission, type BackoffPolicy, type Outcome, type RateLimitStore, type WindowHit, lockAfterFailure } from './store';
export { MemoryRateLimitStore } from './memory-store';
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from './redis-store';
export { addressBucket, trustedProxiesSchema, validateTrustedProxies } from './client-ip';
export {
  registerRateLimits,
  tooManyRequests,
  type LimitStage,
  type RateLimitRule,
  type Refusal,
  type RegisterRateLimitsOptions,
  type RouteCheck,
} from './register-rate-limits';
export { type LimitRule, type WindowCounter, windowCounterFor } from './window-counter';
export { KeyedLimit, type KeyedLimitOptions } from './keyed-limit';
export { SharedFromSecondHit, type SharedFromSecondHitOptions } from './shared-from-second-hit';
export { type ClientIdOf, keyDigest, type Limit, type OAuthPaths, type OAuthRateLimits, oauthRateLimitRules } from './oauth-rules';

import { MemoryRateLimitStore } from './memory-store';
import { RedisRateLimitStore } from './redis-store';
import type { RateLimitStore } from './store';

/** Redis shared by every instance when a URL is configured, this process otherwise. */
export function createRateLimitStore(options: { redisUrl?: string; prefix?: string }): RateLimitStore {
  return options.redisUrl
    ? new RedisRateLimitStore({ url: options.redisUrl, prefix: options.prefix })
    : new MemoryRateLimitStore();
}
