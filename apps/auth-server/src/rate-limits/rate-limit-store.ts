/**
 * The counters of the auth server (Redis when REDIS_URL is set), provided by AccountsModule and
 * shared by the login backoff (LoginThrottle), the route limits (registerAuthServerLimits, route-limits.ts),
 * the token endpoint's limits (TokenEndpointLimits) and the documents' fetch budget (HostFetchBudget).
 */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
