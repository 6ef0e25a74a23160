import { withoutTrailingSlashes } from '@platform/contracts';
import type { EventBus } from '@platform/event-bus';
import { type BearerAuthMetrics, NO_METRICS } from './metrics';

export interface BearerAuthOptions {
  /** RFC 7662 endpoint of the authorization server (an internal URL is fine). */
  introspectionEndpoint: string;
  /** This resource server's own credentials at the introspection endpoint. */
  clientId: string;
  clientSecret: string;
  /** This resource server's canonical URI (RFC 8707): tokens must carry it as audience. */
  resource: string;
  /** RFC 9728 metadata URL, named in every challenge. */
  resourceMetadataUrl: string;
  /** Shared introspection cache; without it only the in-process layer caches. */
  redisUrl?: string;
  /** Where revocation events arrive (the same bus the authorization server publishes on). */
  eventBus: EventBus;
  cache?: {
    /** Upper bound on how long an active answer is cached (and never past the token's expiry). */
    ttlCeilingSeconds?: number;
    /** How long an inactive answer is cached, so floods of bad tokens cost little. */
    inactiveTtlSeconds?: number;
    /** Entries of the in-process layer in front of Redis. */
    inProcessEntries?: number;
    /** Lifetime of an in-process entry, bounded like the Redis one. */
    inProcessTtlSeconds?: number;
  };
  /** How long an introspection call may take before the caller gets 503. */
  introspectionTimeoutMs?: number;
  /** How long a Redis command may take before validation goes around Redis. */
  redisTimeoutMs?: number;
  /** Cache and introspection counters; default: not counted. */
  metrics?: BearerAuthMetrics;
}

export interface ResolvedBearerAuthOptions extends Omit<BearerAuthOptions, 'cache'> {
  cache: Required<NonNullable<BearerAuthOptions['cache']>>;
  introspectionTimeoutMs: number;
  redisTimeoutMs: number;
  metrics: BearerAuthMetrics;
}

export function resolveOptions(options: BearerAuthOptions): ResolvedBearerAuthOptions {
  return {
    ...options,
    resource: withoutTrailingSlashes(options.resource),
    cache: {
      ttlCeilingSeconds: options.cache?.ttlCeilingSeconds ?? 300,
      inactiveTtlSeconds: options.cache?.inactiveTtlSeconds ?? 10,
      inProcessEntries: options.cache?.inProcessEntries ?? 10_000,
      inProcessTtlSeconds: options.cache?.inProcessTtlSeconds ?? 60,
    },
    introspectionTimeoutMs: options.introspectionTimeoutMs ?? 3_000,
    redisTimeoutMs: options.redisTimeoutMs ?? 200,
    metrics: options.metrics ?? NO_METRICS,
  };
}

export const BEARER_AUTH_OPTIONS = Symbol('BEARER_AUTH_OPTIONS');
