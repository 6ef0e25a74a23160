import { MAX_CLIENT_ID_LENGTH } from '@platform/contracts';
import { MetadataDocumentError } from './errors';

/**
 * Longest client_id URL accepted: a client_id URL is a client_id, so it is held to the one
 * MAX_CLIENT_ID_LENGTH (255) that every endpoint checks client ids against (isClientIdSyntax).
 */
export const MAX_CLIENT_ID_URL_LENGTH = MAX_CLIENT_ID_LENGTH;

/**
 * Whether a client_id is meant as a URL: it starts with a scheme. Registered client ids are
 * base64url (no colon), so the two kinds never overlap; a URL that is not an acceptable
 * metadata document URL (http, a fragment...) is then refused with a reason rather than
 * looked up as an unknown registered id.
 */
export function isUrlClientId(clientId: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(clientId);
}

/**
 * Checks a client_id URL (draft-ietf-oauth-client-id-metadata-document, "Client Identifier
 * URL"): client identifier URLs "MUST have an https scheme, MUST contain a path component,
 * MUST NOT contain single-dot or double-dot path segments, MAY contain a query string
 * component, MUST NOT contain a fragment component and MUST NOT contain a username or password
 * component". The document's client_id is compared with this string exactly, so a URL that
 * is not already in its normalized form (uppercase scheme or host, default port spelled out,
 * percent-encoded dots) is refused instead of silently rewritten.
 */
export function parseClientIdUrl(clientId: string): URL {
  const refuse = (description: string) => new MetadataDocumentError('malformed-client-id', description);
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH) {
    throw refuse(`a client_id URL is at most ${MAX_CLIENT_ID_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse('the client_id is not a valid URL');
  }
  if (!clientId.startsWith('https://') || url.protocol !== 'https:') throw refuse('a client_id URL must use https');
  if (url.username || url.password || url.host === '' || clientId.slice('https://'.length).split('/')[0].includes('@')) {
    throw refuse('a client_id URL must not contain a username or password');
  }
  if (clientId.includes('#')) throw refuse('a client_id URL must not contain a fragment');
  const rawPath = clientId.slice(`https://${url.host}`.length).split('?')[0];
  const segments = rawPath.split('/').slice(1);
  if (segments.some((segment) => ['.', '..'].includes(safeDecode(segment)))) {
    throw refuse('a client_id URL must not contain dot segments');
  }
  if (url.pathname === '/' || url.pathname === '') throw refuse('a client_id URL must contain a path');
  if (url.href !== clientId) throw refuse('the client_id URL is not in normalized form (lowercase host, no default port)');
  return url;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The key per-host limits and logs use for a URL client_id: its host, lowercased, with port. */
export function clientIdHost(clientId: string): string | null {
  if (!isUrlClientId(clientId)) return null;
  try {
    return new URL(clientId).host;
  } catch {
    return null;
  }
}
