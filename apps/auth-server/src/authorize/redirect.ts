import { type OAuthError, toErrorDescription } from '@platform/oauth-errors';

/**
 * Adds parameters to a redirect URI. RFC 6749 §3.1.2: the endpoint URI "MAY include an
 * "application/x-www-form-urlencoded" formatted ... query component, which MUST be retained
 * when adding additional query parameters". The existing query is kept byte for byte (not
 * re-serialized, which could change its encoding); the new parameters are appended with
 * URLSearchParams, so they are always properly encoded.
 */
export function buildRedirectUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  const added = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) added.append(name, value);
  }
  const existing = url.search.slice(1);
  url.search = existing ? `${existing}&${added.toString()}` : added.toString();
  return url.href;
}

/** RFC 6749 §4.1.2 with RFC 9207's `iss`. */
export function authorizationResponseParams(code: string, state: string | undefined, issuer: string): Record<string, string | undefined> {
  return { code, state, iss: issuer };
}

/** RFC 6749 §4.1.2.1 with RFC 9207's `iss`. */
export function errorResponseParams(error: OAuthError, state: string | undefined, issuer: string): Record<string, string | undefined> {
  return { error: error.error, error_description: descriptionForRedirect(error.description), state, iss: issuer };
}

export function authorizationResponseUrl(redirectUri: string, code: string, state: string | undefined, issuer: string): string {
  return buildRedirectUrl(redirectUri, authorizationResponseParams(code, state, issuer));
}

export function errorResponseUrl(redirectUri: string, error: OAuthError, state: string | undefined, issuer: string): string {
  return buildRedirectUrl(redirectUri, errorResponseParams(error, state, issuer));
}

/**
 * RFC 6749 §4.1.2.1: error_description "MUST NOT include characters outside the set
 * %x20-21 / %x23-5B / %x5D-7E". OAuthError already holds it so; the one rule lives in
 * @platform/oauth-errors.
 */
export function descriptionForRedirect(description: string): string {
  return toErrorDescription(description);
}
