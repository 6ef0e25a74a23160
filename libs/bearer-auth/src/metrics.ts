/**
 * Where the bearer validation reports what it did, for a service that exports metrics. The
 * lib depends on no metrics library: a service passes an implementation (prom-client in the
 * resource server) through BearerAuthModule.forRoot({ metrics }); without one nothing is counted.
 */
export interface BearerAuthMetrics {
  /** One lookup of a token's answer in a cache layer. */
  cacheLookup(layer: 'memory' | 'redis', result: 'hit' | 'miss'): void;
  /**
   * Optional: a counter of one layer and result with its labels bound once (prom-client's
   * `counter.labels(...)`), for the lookups counted on every request. Without it the lib binds
   * `cacheLookup` itself.
   */
  cacheLookupCounter?(layer: 'memory' | 'redis', result: 'hit' | 'miss'): { inc(): void };
  /** One call to the introspection endpoint (concurrent misses share one), by what it answered. */
  introspection(outcome: IntrospectionOutcome): void;
}

/** active / inactive: the authorization server answered; error: it could not (the caller got 503). */
export type IntrospectionOutcome = 'active' | 'inactive' | 'error';

export const NO_METRICS: BearerAuthMetrics = Object.freeze({
  cacheLookup: () => undefined,
  introspection: () => undefined,
});

/** What one cache lookup of this layer and result costs to count: labels bound once where the service can. */
export function boundCacheLookup(metrics: BearerAuthMetrics, layer: 'memory' | 'redis', result: 'hit' | 'miss'): () => void {
  const counter = metrics.cacheLookupCounter?.(layer, result);
  if (counter) return () => counter.inc();
  return () => metrics.cacheLookup(layer, result);
}
