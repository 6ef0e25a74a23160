import type { Resolver } from './document-fetcher';

/** Test seams of every fetch from clients' sites: a DNS stand-in and a clock for the caches. Production passes nothing. */
export interface ResolverOverrides {
  resolver?: Resolver;
  /** Milliseconds, monotonic. */
  now?: () => number;
}
export const CIMD_RESOLVER_OVERRIDES = Symbol('CIMD_RESOLVER_OVERRIDES');
