import { matchesRegisteredRedirectUri } from '../clients/redirect-uri';

/**
 * The authorization request's redirect_uri against a client's redirect URIs, whatever the kind
 * of client: an https URI (metadata documents, staff integrations) must equal one of them
 * character for character (RFC 9700 §4.1.1: "exact string matching"); a loopback http URI
 * matches one that differs only in its port (RFC 8252 §7.3), by the registered clients' rule.
 */
export function matchesClientRedirectUri(redirectUris: readonly string[], presented: string): boolean {
  if (presented.startsWith('https://')) return redirectUris.includes(presented);
  return matchesRegisteredRedirectUri(redirectUris, presented);
}

/** Whether every redirect URI is a loopback one (the app runs on the user's own computer). */
export function onlyLoopbackRedirects(redirectUris: readonly string[]): boolean {
  return redirectUris.length > 0 && redirectUris.every((uri) => uri.startsWith('http://'));
}
