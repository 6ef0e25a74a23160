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

/** RFC 9449 §7.1: the DPoP scheme's auth-params are RFC 6750 §3's, with its own error codes besides. */
export interface DpopChallenge extends Omit<BearerChallenge, 'error'> {
  /** RFC 6750 §3.1's codes, RFC 9449 §7.1's invalid_dpop_proof and §9's use_dpop_nonce. */
  error?: BearerChallenge['error'] | 'invalid_dpop_proof' | 'use_dpop_nonce';
}

/**
 * Builds a `WWW-Authenticate: Bearer ...` value (RFC 6750 §3). Attribute values are
 * quoted-strings; quotes and backslashes are escaped and control characters dropped so
 * that no caller-influenced text can break the header.
 */
export function bearerChallenge(challenge: BearerChallenge): string {
  return withScheme('Bearer', authParams(challenge));
}

/**
 * Builds a `WWW-Authenticate: DPoP ...` value (RFC 9449 §7.1): RFC 6750 §3's auth-params,
 * quoted as in bearerChallenge, then `algs`, the space-separated JWS algorithms accepted for
 * DPoP proofs, always present.
 */
export function dpopChallenge(challenge: DpopChallenge, algorithms: readonly string[]): string {
  return withScheme('DPoP', [...authParams(challenge), `algs="${quote(algorithms.join(' '))}"`]);
}

function authParams(challenge: DpopChallenge): string[] {
  const params: [string, string | undefined][] = [
    ['realm', challenge.realm],
    ['error', challenge.error],
    // RFC 6750 §3: error_description "MUST NOT include characters outside the set %x20-21 /
    // %x23-5B / %x5D-7E": the same grammar as every other error_description.
    ['error_description', challenge.errorDescription === undefined ? undefined : toErrorDescription(challenge.errorDescription)],
    ['scope', challenge.scope],
    ['resource_metadata', challenge.resourceMetadata],
  ];
  return params
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `${name}="${quote(value)}"`);
}

function withScheme(scheme: string, params: string[]): string {
  return params.length ? `${scheme} ${params.join(', ')}` : scheme;
}

function quote(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/(["\\])/g, '\\$1');
}
