/**
 * The services' own operational endpoints. They are answered on each service's port; the
 * request logs put them at debug level and the HTTP metrics leave them out, so probes every
 * few seconds neither flood the logs nor pass for API traffic.
 */
export const OPERATIONAL_PATHS = {
  liveness: '/healthz',
  readiness: '/readyz',
  metrics: '/metrics',
} as const;

const ALL = new Set<string>(Object.values(OPERATIONAL_PATHS));

/** For a path (no query) or a route pattern. */
export function isOperationalPath(path: string): boolean {
  return ALL.has(path);
}
