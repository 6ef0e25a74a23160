import { withoutTrailingSlashes } from '@platform/contracts';
import { DPOP_SIGNING_ALGORITHMS, type DpopNonces } from '@platform/dpop';
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
  /**
   * The public origin clients call (the gateway), without a trailing slash: a DPoP proof's htu
   * must be it followed by the request's path (RFC 9449 §4.3). Default: `resource`.
   */
  publicBaseUrl?: string;
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
  dpop?: {
    /** The proofs' algorithms, named in `DPoP algs="..."`; default every asymmetric one libs/dpop accepts. */
    algorithms?: readonly string[];
    /** How old a proof may be (its iat), in seconds; default 60. */
    maxAgeSeconds?: number;
    /** Server nonces (RFC 9449 §9): every proof must carry a current one. Default: none asked for. */
    nonces?: DpopNonces;
    /** Proofs remembered in-process (no Redis, or Redis away) for the single-use check; default 100,000. */
    inProcessReplayEntries?: number;
  };
}

export interface ResolvedBearerAuthOptions extends Omit<BearerAuthOptions, 'cache' | 'dpop'> {
  cache: Required<NonNullable<BearerAuthOptions['cache']>>;
  publicBaseUrl: string;
  dpop: { algorithms: readonly string[]; maxAgeSeconds: number; nonces?: DpopNonces; inProcessReplayEntries: number };
  introspectionTimeoutMs: number;
  redisTimeoutMs: number;
  metrics: BearerAuthMetrics;
}

export function resolveOptions(options: BearerAuthOptions): ResolvedBearerAuthOptions {
  return {
    ...options,
    resource: withoutTrailingSlashes(options.resource),
    publicBaseUrl: withoutTrailingSlashes(options.publicBaseUrl ?? options.resource),
    cache: {
      ttlCeilingSeconds: options.cache?.ttlCeilingSeconds ?? 300,
      inactiveTtlSeconds: options.cache?.inactiveTtlSeconds ?? 10,
      inProcessEntries: options.cache?.inProcessEntries ?? 10_000,
      inProcessTtlSeconds: options.cache?.inProcessTtlSeconds ?? 60,
    },
    introspectionTimeoutMs: options.introspectionTimeoutMs ?? 3_000,
    redisTimeoutMs: options.redisTimeoutMs ?? 200,
    metrics: options.metrics ?? NO_METRICS,
    dpop: {
      algorithms: options.dpop?.algorithms ?? DPOP_SIGNING_ALGORITHMS,
      maxAgeSeconds: options.dpop?.maxAgeSeconds ?? 60,
      nonces: options.dpop?.nonces,
      inProcessReplayEntries: options.dpop?.inProcessReplayEntries ?? 100_000,
    },
  };
}

export const BEARER_AUTH_OPTIONS = Symbol('BEARER_AUTH_OPTIONS');
