import { createHash } from 'node:crypto';
import { formatScopes, parseScopeString, scopesOutside } from '@platform/scopes';
import type { ClientKind } from '../client-metadata-documents/client-directory';
import type { AuthorizationRequest } from './authorization-request';

/** What the decision needs to know of the client (client-metadata-documents DirectoryClient). */
export interface ConsentClient {
  kind: ClientKind;
  tokenEndpointAuthMethod: string;
  redirectUris: readonly string[];
}

/** A remembered consent as the decision needs it (the consents row). */
export interface StoredConsent {
  id: string;
  /** Canonical scope string: everything approved for this client so far. */
  scope: string;
  redirectUrisDigest: string;
  expiresAt: Date;
}

/**
 * What the user's remembered consent does for one authorization request:
 * - `skip`: everything asked was approved before and may be granted without a page;
 * - `ask`: the page is shown; `asked` is what it lists as new, `alreadyGranted` what it only
 *   mentions (both in canonical order; together they are the request's scopes).
 */
export type ConsentDecision =
  | { kind: 'skip'; consentId: string }
  | { kind: 'ask'; asked: readonly string[]; alreadyGranted: readonly string[] };

/** Why a remembered consent is not used for a request (tests and comments name them). */
export type NotRemembered = 'none' | 'expired' | 'redirect-uris-changed' | 'identity-not-assured' | 'prompt-consent';

/**
 * SHA-256 of the client's redirect URIs as a set. A remembered consent holds the digest of the
 * URIs the client had when the user approved: the redirect URIs are what sends a code to the
 * application the user approved and nowhere else (RFC 6749 §10.2), so when a metadata document
 * names other ones (a new owner of its domain, a compromised document), nothing is remembered:
 * the user sees the page again, with where the code will go. Keys, name and logo may change
 * without this: keys rotate as a matter of hygiene (the CIMD draft's "Changes in Client Keys")
 * and are checked at the token endpoint on every exchange; a code still reaches only these URIs.
 */
export function redirectUrisDigest(redirectUris: readonly string[]): string {
  const uris = [...new Set(redirectUris)].sort();
  return createHash('sha256').update(JSON.stringify(uris)).digest('base64url');
}

/**
 * Whether a remembered consent may answer for this client at this redirect URI without a page.
 *
 * RFC 8252 §8.6: "the authorization server SHOULD NOT process authorization requests
 * automatically without user consent or interaction, except when the identity of the client can
 * be assured. This includes the case where the user has previously approved an authorization
 * request for a given client id". The identity is assured here when
 * - the redirect URI is https: the code can only reach the web origin the client registered;
 * - or the client authenticates at the token endpoint (private_key_jwt, a secret): a code is
 *   worthless to anyone without its key;
 * - or its client_id was issued by this server to one installation (dynamic registration), which
 *   keeps it with its tokens: a program able to read it could read the tokens as well.
 * Left is a public client whose client_id anyone may name (a metadata document's URL) with a
 * loopback redirect URI: any program on the computer can listen on a loopback port and present
 * that client_id (MCP's "Localhost Redirect URI Risks"), so it is asked every time, as the
 * consent page's warning says.
 */
export function identityAssured(client: Omit<ConsentClient, 'redirectUris'>, redirectUri: string): boolean {
  if (redirectUri.startsWith('https://')) return true;
  if (client.tokenEndpointAuthMethod !== 'none') return true;
  return client.kind !== 'metadata_document';
}

/** Why the stored consent (if any) cannot be used for this request; null when it can. */
export function whyNotRemembered(
  request: Pick<AuthorizationRequest, 'prompts' | 'redirectUri'>,
  client: ConsentClient,
  stored: StoredConsent | null,
  now: Date,
): NotRemembered | null {
  if (!stored) return 'none';
  if (stored.expiresAt <= now) return 'expired';
  if (stored.redirectUrisDigest !== redirectUrisDigest(client.redirectUris)) return 'redirect-uris-changed';
  // OpenID Connect Core §3.1.2.1: prompt=consent, "The Authorization Server SHOULD prompt the End-User for consent".
  if (request.prompts.has('consent')) return 'prompt-consent';
  // RFC 8252 §8.6: "the request SHOULD be processed as if no previous request had been approved".
  if (!identityAssured(client, request.redirectUri)) return 'identity-not-assured';
  return null;
}

/** What the remembered consent does for this request (see ConsentDecision). */
export function decideConsent(
  request: Pick<AuthorizationRequest, 'prompts' | 'redirectUri' | 'scopes'>,
  client: ConsentClient,
  stored: StoredConsent | null,
  now: Date,
): ConsentDecision {
  if (!stored || whyNotRemembered(request, client, stored, now) !== null) {
    return { kind: 'ask', asked: request.scopes, alreadyGranted: [] };
  }
  const granted = parseScopeString(stored.scope);
  const asked = scopesOutside(request.scopes, granted);
  if (asked.length === 0) return { kind: 'skip', consentId: stored.id };
  return { kind: 'ask', asked, alreadyGranted: request.scopes.filter((scope) => granted.includes(scope)) };
}

/**
 * The scope remembered once the user approves `approved` on the page: added to what is
 * remembered while that still holds (step-up), else (lapsed, other redirect URIs) only `approved`.
 */
export function scopeToRemember(
  stored: Pick<StoredConsent, 'scope' | 'redirectUrisDigest' | 'expiresAt'> | null,
  approved: readonly string[],
  digest: string,
  now: Date,
): string {
  const kept = stored && stored.expiresAt > now && stored.redirectUrisDigest === digest ? parseScopeString(stored.scope) : [];
  return formatScopes([...kept, ...approved]);
}
