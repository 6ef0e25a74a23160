import { InvalidTargetError } from '@platform/oauth-errors';

/**
 * The most `resource` parameters one request may carry, and the longest each may be: at the
 * authorization endpoint and at the token endpoint alike. RFC 8707 allows several; this server
 * has one protected resource, spelled a few ways, so ten is plenty.
 */
export const MAX_RESOURCES = 10;
export const MAX_RESOURCE_LENGTH = 2000;

/**
 * RFC 8707 resource indicators. The platform has one protected resource, its API, whose
 * canonical URI is the public origin. Clients spell it many ways (the origin, `{base}/mcp`,
 * `{base}/api/v1`, with or without a trailing slash, an upper-case scheme or host: clients
 * serialize with `URL.href`, which adds the slash of an empty path); every URI under the
 * origin is accepted and bound to the canonical one, so one token serves the API and /mcp.
 *
 * RFC 8707 §2: the value "MUST be an absolute URI" and "MUST NOT include a fragment component".
 */
export function resolveResource(apiResource: string, requested: string | undefined): string {
  if (requested === undefined || requested === '') return apiResource;
  if (requested.includes('#')) throw new InvalidTargetError('The resource parameter must not have a fragment');
  if (!URL.canParse(requested)) throw new InvalidTargetError('The resource parameter must be an absolute URI');
  const url = normalizeResourceUri(requested);
  const canonical = normalizeResourceUri(apiResource) as NormalizedResource;
  const samePlace = url !== null && url.origin === canonical.origin && `${url.path}/`.startsWith(`${canonical.path}/`);
  if (!samePlace || url.hasUserinfo) {
    throw new InvalidTargetError(`Unknown resource; this server issues tokens for ${apiResource}`);
  }
  return apiResource;
}

export interface NormalizedResource {
  /** Scheme and host in lower case, default port dropped (RFC 3986 §6.2.2.1, §6.2.3). */
  origin: string;
  /** Dot segments resolved, unreserved characters decoded, no trailing slash; '' for the root. */
  path: string;
  hasUserinfo: boolean;
}

/**
 * The comparable form of an absolute http(s) URI (RFC 3986 §6.2.2 syntax-based and §6.2.3
 * scheme-based normalization): `HTTP://Example.COM:80/`, `http://example.com` and
 * `http://example.com/` are the same resource; so are `/mcp` and `/mcp/`. Null when the value is
 * not an absolute http(s) URI.
 */
export function normalizeResourceUri(value: string): NormalizedResource | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // §6.2.2.2: percent-encoded unreserved characters are the characters themselves.
  const path = url.pathname.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escape.toUpperCase();
  });
  return { origin: url.origin, path: withoutTrailingSlashes(path), hasUserinfo: Boolean(url.username || url.password) };
}

/**
 * Linear, where `path.replace(/\/+$/, '')` is quadratic: the regex tries every slash of a long
 * run as a start and scans to the run's end each time (60,000 slashes and an `x`: seconds of a
 * blocked event loop).
 */
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}
