/**
 * Loopback redirect URIs for native clients (RFC 8252 §7.3), the only kind this server
 * registers: http://127.0.0.1:<port>/<path>, http://[::1]:<port>/<path>, and
 * http://localhost:<port>/<path> (which MCP clients use, although §8.3 prefers IP literals).
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export type RedirectUriProblem =
  | 'not-a-url'
  | 'not-http'
  | 'not-https'
  | 'not-loopback'
  | 'has-fragment'
  | 'has-userinfo'
  | 'not-normalized';

/** What each problem means, in the words of RFC 6749 §5.2 error descriptions (ASCII, no quotes). */
export const REDIRECT_URI_PROBLEMS: Record<RedirectUriProblem, string> = {
  'not-a-url': 'is not an absolute URI',
  'not-http': 'must use http on a loopback address (RFC 8252 section 7.3); https and custom schemes are not accepted',
  'not-https': 'must use https',
  'not-loopback': 'must point at a loopback address: 127.0.0.1, [::1] or localhost',
  'has-fragment': 'must not contain a fragment (RFC 6749 section 3.1.2)',
  'has-userinfo': 'must not contain user information',
  'not-normalized': 'must be written in normalized form (lowercase scheme and host, no dot segments, no default port)',
};

/**
 * Checks one registered redirect URI. RFC 6749 §3.1.2: "The endpoint URI MUST NOT include
 * a fragment component." RFC 9700 §4.1.1 asks for exact string matching, so a URI whose
 * string differs from its parsed form (uppercase scheme or host, dot segments, default
 * port spelled out) is refused rather than silently normalized.
 */
export function checkRedirectUri(raw: string): RedirectUriProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not-a-url';
  }
  if (url.protocol !== 'http:') return 'not-http';
  if (url.username || url.password || raw.includes('@')) return 'has-userinfo';
  if (raw.includes('#')) return 'has-fragment';
  if (!LOOPBACK_HOSTS.has(url.hostname)) return 'not-loopback';
  const bareOrigin = url.pathname === '/' && !url.search && url.href === `${raw}/`;
  if (url.href !== raw && !bareOrigin) return 'not-normalized';
  return null;
}

/**
 * Checks an https redirect URI (staff integrations, client ID metadata documents): the same
 * RFC 6749 §3.1.2 and exact-matching rules as checkRedirectUri, for https on any host. A URI
 * with userinfo, a fragment, or in any but its parsed form is refused, not normalized.
 */
export function checkHttpsRedirectUri(raw: string): RedirectUriProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not-a-url';
  }
  if (url.protocol !== 'https:' || !raw.startsWith('https://')) return 'not-https';
  if (url.username || url.password) return 'has-userinfo';
  if (raw.includes('#')) return 'has-fragment';
  if (url.href !== raw) return 'not-normalized';
  return null;
}

function withoutPort(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || url.username || url.password) return null;
  if (raw.includes('#') || raw.includes('@')) return null;
  // Compare the presented string as sent, only the port taken out.
  const port = url.port ? `:${url.port}` : '';
  const authority = `http://${url.hostname}${port}`;
  if (!raw.startsWith(authority)) return null;
  return `http://${url.hostname}${raw.slice(authority.length) || '/'}`;
}

/**
 * RFC 8252 §7.3: "The authorization server MUST allow any port to be specified at the
 * time of the request for loopback IP redirect URIs". Everything else — scheme, host,
 * path and query — has to match a registered URI exactly (RFC 9700 §4.1.3).
 */
export function matchesRegisteredRedirectUri(registered: readonly string[], presented: string): boolean {
  const candidate = withoutPort(presented);
  if (candidate === null) return false;
  return registered.some((uri) => withoutPort(uri) === candidate);
}
