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

/** Request headers that carry credentials. */
const REQUEST_CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'] as const;
/** Response headers that carry credentials (set-cookie) or may (location: the code of a redirect). */
const RESPONSE_CREDENTIALS = ['set-cookie', 'location'] as const;

const pinoPath = (side: 'req' | 'res', name: string) => (/^\w+$/.test(name) ? `${side}.headers.${name}` : `${side}.headers["${name}"]`);

/** Credentials and what carries them, wherever a log line may hold headers (pino's redact paths). */
export const REDACT_PATHS = [
  ...REQUEST_CREDENTIALS.map((name) => pinoPath('req', name)),
  ...RESPONSE_CREDENTIALS.map((name) => pinoPath('res', name)),
];

/**
 * A copy of a request's or response's headers with the credentials censored as REDACT_PATHS
 * would: for the request log lines, which build their header copies themselves rather than pay
 * pino's redaction on every line (see http-logging.ts).
 */
export function censoredHeaders(side: 'req' | 'res', headers: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...headers };
  for (const name of side === 'req' ? REQUEST_CREDENTIALS : RESPONSE_CREDENTIALS) {
    if (copy[name] !== undefined) copy[name] = censor(copy[name], [side, 'headers', name]);
  }
  return copy;
}

/** pino's censor: a redirect keeps its origin and path (useful) and loses its query (the code). */
export function censor(value: unknown, path: string[]): unknown {
  if (path[path.length - 1] === 'location' && typeof value === 'string') {
    const bare = pathOf(value);
    return bare === value ? value : `${bare}?${REDACTED}`;
  }
  return REDACTED;
}
