import { z } from 'zod';

/**
 * Which service owns which public path behind the gateway: the only place that says so.
 * A `prefix` route owns the path itself and everything below it (`/oauth`, `/oauth/...`,
 * not `/oauthx`); an `exact` route owns that one path. The query string never matters.
 */
export type ServiceName = 'auth-server' | 'resource-server';

export interface Route {
  path: string;
  match: 'prefix' | 'exact';
  service: ServiceName;
}

export const ROUTES: readonly Route[] = [
  { path: '/oauth', match: 'prefix', service: 'auth-server' },
  { path: '/api/oauth', match: 'prefix', service: 'auth-server' },
  { path: '/.well-known/oauth-authorization-server', match: 'exact', service: 'auth-server' },
  { path: '/.well-known/openid-configuration', match: 'exact', service: 'auth-server' },
  { path: '/.well-known/jwks.json', match: 'exact', service: 'auth-server' },
];

/**
 * The largest body each service's parsers accept (its Fastify bodyLimit; the resource
 * server's uploads have their own, UPLOAD_MAX_BYTES). The gateway refuses a bigger body
 * itself with 413: a service that refuses one mid-stream would leave the gateway a broken pipe.
 */
export const SERVICE_BODY_LIMITS: Readonly<Record<ServiceName, number>> = {
  // Small OAuth forms and client metadata.
  'auth-server': 64 * 1024,
  // JSON (lesson content is the largest).
  'resource-server': 1024 * 1024,
};

/** The resource server's upload route: the one path whose bodies may reach UPLOAD_MAX_BYTES. */
export const UPLOAD_PATH = '/api/v1/storage/files';

/** UPLOAD_MAX_BYTES when unset, for the resource server and the gateway alike. */
export const DEFAULT_UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
/** The largest UPLOAD_MAX_BYTES either of them accepts. */
export const MAX_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

/** UPLOAD_MAX_BYTES, read alike by the resource server and the gateway (which refuses bigger uploads first). */
export const uploadMaxBytesEnv = z.coerce.number().int().positive().max(MAX_UPLOAD_MAX_BYTES).default(DEFAULT_UPLOAD_MAX_BYTES);

/** Owner of every path no route claims. */
export const DEFAULT_SERVICE: ServiceName = 'resource-server';

export const SERVICES: readonly ServiceName[] = ['auth-server', 'resource-server'];

/**
 * Paths the gateway answers itself, before the table: they never reach a service. The
 * services' own /healthz, /readyz and /metrics are on their ports; through the origin only
 * their probes are reachable, as `/<service>/healthz` and `/<service>/readyz`.
 */
export const GATEWAY_PATHS = {
  /** The gateway's liveness: it answers. */
  liveness: '/healthz',
  /** The gateway's readiness: every service answers its liveness probe. */
  readiness: '/readyz',
  /** Always 404: metrics are scraped on each service's own port, never through the origin. */
  metrics: '/metrics',
  /**
   * Always 404, this path and everything below it: the services' internal routes (the security
   * events the authorization server sends the resource server) are reached on their own ports only.
   */
  internal: '/internal',
} as const;

export const SERVICE_PROBES = ['/healthz', '/readyz'] as const;
export type ServiceProbe = (typeof SERVICE_PROBES)[number];

/** `/auth-server/readyz` → the auth-server's `/readyz`. `/<service>/anything-else` is 404 at the gateway. */
export function serviceProbeFor(target: string): { service: ServiceName; path: ServiceProbe } | undefined {
  const pathname = target.split('?', 1)[0];
  for (const service of SERVICES) {
    const path = SERVICE_PROBES.find((probe) => pathname === `/${service}${probe}`);
    if (path) return { service, path };
  }
  return undefined;
}

function matches(route: Route, pathname: string): boolean {
  if (route.match === 'exact') return pathname === route.path;
  return pathname === route.path || pathname.startsWith(`${route.path}/`);
}

/**
 * The service that owns a request target (path, optionally with its query string), for the
 * targets the gateway forwards (GATEWAY_PATHS and the services' probe prefixes it answers itself).
 */
export function serviceFor(target: string): ServiceName {
  const pathname = target.split('?', 1)[0];
  return ROUTES.find((route) => matches(route, pathname))?.service ?? DEFAULT_SERVICE;
}

export { isOperationalPath, OPERATIONAL_PATHS } from './operational-paths';
