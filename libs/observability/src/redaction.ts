export const REDACTED = '[Redacted]';

/**
 * A request target without its query string or fragment. Queries are never logged: on
 * /oauth/authorize they carry state and PKCE challenges, on redirects the authorization code,
 * and a misbehaving client may put an access token in one.
 */
export function pathOf(target: string | undefined): string {
  if (!target) return '';
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/** Credentials and what carries them, wherever a log line may hold headers. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'res.headers.location',
];

/** pino's censor: a redirect keeps its origin and path (useful) and loses its query (the code). */
export function censor(value: unknown, path: string[]): unknown {
  if (path[path.length - 1] === 'location' && typeof value === 'string') {
    const bare = pathOf(value);
    return bare === value ? value : `${bare}?${REDACTED}`;
  }
  return REDACTED;
}
