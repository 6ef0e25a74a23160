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

/** Owner of every path no route claims. */
export const DEFAULT_SERVICE: ServiceName = 'resource-server';

function matches(route: Route, pathname: string): boolean {
  if (route.match === 'exact') return pathname === route.path;
  return pathname === route.path || pathname.startsWith(`${route.path}/`);
}

/** The service that owns a request target (path, optionally with its query string). */
export function serviceFor(target: string): ServiceName {
  const pathname = target.split('?', 1)[0];
  return ROUTES.find((route) => matches(route, pathname))?.service ?? DEFAULT_SERVICE;
}
