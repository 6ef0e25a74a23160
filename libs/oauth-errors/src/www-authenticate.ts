import { toErrorDescription } from './error-description';

export interface BearerChallenge {
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  errorDescription?: string;
  /** Space-separated scopes the resource needs (RFC 6750 §3). */
  scope?: string;
  /** RFC 9728 §5.1: where the client finds the protected resource metadata. */
  resourceMetadata?: string;
  realm?: string;
}

/**
 * Builds a `WWW-Authenticate: Bearer ...` value (RFC 6750 §3). Attribute values are
 * quoted-strings; quotes and backslashes are escaped and control characters dropped so
 * that no caller-influenced text can break the header.
 */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: [string, string | undefined][] = [
    ['realm', challenge.realm],
    ['error', challenge.error],
    // RFC 6750 §3: error_description "MUST NOT include characters outside the set %x20-21 /
    // %x23-5B / %x5D-7E": the same grammar as every other error_description.
    ['error_description', challenge.errorDescription === undefined ? undefined : toErrorDescription(challenge.errorDescription)],
    ['scope', challenge.scope],
    ['resource_metadata', challenge.resourceMetadata],
  ];
  const rendered = params
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `${name}="${quote(value)}"`);
  return rendered.length ? `Bearer ${rendered.join(', ')}` : 'Bearer';
}

function quote(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/(["\\])/g, '\\$1');
}
