/**
 * Where the bearer validation reports what it did, for a service that exports metrics. The
 * lib depends on no metrics library: a service passes an implementation (prom-client in the
 * resource server) through BearerAuthModule.forRoot({ metrics }); without one nothing is counted.
 */
export interface BearerAuthMetrics {
  /** One lookup of a token's answer in a cache layer. */
  cacheLookup(layer: 'memory' | 'redis', result: 'hit' | 'miss'): void;
  /** One call to the introspection endpoint (concurrent misses share one), by what it answered. */
  introspection(outcome: IntrospectionOutcome): void;
}

/** active / inactive: the authorization server answered; error: it could not (the caller got 503). */
export type IntrospectionOutcome = 'active' | 'inactive' | 'error';

export const NO_METRICS: BearerAuthMetrics = Object.freeze({
  cacheLookup: () => undefined,
  introspection: () => undefined,
});
