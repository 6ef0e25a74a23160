import { formatScopes, isScope, parseScopeString } from '@platform/scopes';
import { z } from 'zod';
import { checkHttpsRedirectUri, checkRedirectUri } from '../clients/redirect-uri';
import { MetadataDocumentError } from './errors';
import { SUPPORTED_GRANT_TYPES } from '../token/grants/supported-grant-types';

/** What a valid document says, in the shape the rest of the server uses for clients. */
export interface MetadataDocumentClient {
  /** The client_id URL itself. */
  id: string;
  /** host[:port] of the client_id URL: what the consent page shows and limits are keyed by. */
  host: string;
  name: string;
  applicationType: 'web' | 'native';
  /** The usable redirect URIs: loopback (any port, RFC 8252 §7.3) and https on the client_id's origin. */
  redirectUris: string[];
  tokenEndpointAuthMethod: 'none';
  grantTypes: ('authorization_code' | 'refresh_token')[];
  responseTypes: 'code'[];
  /** The document's known scopes, space-separated; '' when it names none (the server's default applies). */
  scope: string;
  /** Every usable redirect URI is a loopback one: the consent page warns. */
  loopbackOnly: boolean;
}

const MAX_REDIRECT_URIS = 20;
const MAX_URI_LENGTH = 2000;
const SUPPORTED_GRANTS: ReadonlySet<string> = new Set(SUPPORTED_GRANT_TYPES);
const printable = (value: string) => !/[\p{Cc}\p{Cf}]/u.test(value);

/**
 * Members this server reads; every other member is ignored (RFC 7591 §2: the server "MUST
 * ignore any client metadata sent by the client that it does not understand").
 */
const DocumentSchema = z.looseObject({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).refine(printable, 'control or format characters'),
  redirect_uris: z.array(z.string().max(MAX_URI_LENGTH)).min(1).max(MAX_REDIRECT_URIS),
  token_endpoint_auth_method: z.string().max(100).optional(),
  grant_types: z.array(z.string().max(200)).max(20).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  application_type: z.string().max(50).optional(),
  scope: z.string().max(2000).optional(),
});

/**
 * Validates a fetched client ID metadata document against the URL it came from
 * (draft-ietf-oauth-client-id-metadata-document, "Client ID Metadata Document" and the
 * security considerations on redirect_uris).
 */
export function validateMetadataDocument(clientIdUrl: URL, body: unknown): MetadataDocumentClient {
  const refuse = (description: string) => new MetadataDocumentError('invalid-document', description, `${clientIdUrl.href}: ${description}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refuse('the document must be a JSON object');
  const raw = body as Record<string, unknown>;

  // "The client_id property MUST be ... the URL of the document", compared as strings.
  if (raw['client_id'] !== clientIdUrl.href) throw refuse('its client_id is not exactly the URL it was fetched from');
  // Shared secrets cannot be published: the draft forbids client_secret and client_secret_expires_at
  // and the client_secret_* methods. This server supports only public CIMD clients (none).
  if ('client_secret' in raw || 'client_secret_expires_at' in raw) throw refuse('it must not contain a client_secret');
  const parsed = DocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue.path[0] ?? 'document');
    throw refuse(issue.code === 'invalid_type' && issue.input === undefined ? `${field} is required` : `${field} is invalid`);
  }
  const doc = parsed.data;
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw refuse('token_endpoint_auth_method must be none (shared secrets and keys are not supported)');

  const redirectUris: string[] = [];
  for (const uri of doc.redirect_uris) {
    const verdict = classifyRedirectUri(uri, clientIdUrl);
    if (verdict === 'loopback' || verdict === 'same-origin-https') redirectUris.push(uri);
    else if (verdict === 'other-scheme') continue; // private-use schemes (RFC 8252 §7.1) are not supported: ignored
    else throw refuse(REDIRECT_PROBLEMS[verdict]);
  }
  if (redirectUris.length === 0) {
    throw refuse('no usable redirect_uris: use http loopback or https on the origin of the client_id');
  }

  // Grant types this server does not support (device_code, ...) are ignored. RFC 7591 §2: the default is authorization_code.
  const listed = doc.grant_types ?? ['authorization_code'];
  const grantTypes = [...new Set(listed.filter((grant) => SUPPORTED_GRANTS.has(grant)))] as MetadataDocumentClient['grantTypes'];
  if (!grantTypes.includes('authorization_code')) throw refuse('grant_types must include authorization_code');
  if (doc.response_types && !doc.response_types.includes('code')) throw refuse('response_types must include code');

  return {
    id: clientIdUrl.href,
    host: clientIdUrl.host,
    name: doc.client_name,
    applicationType: doc.application_type === 'native' ? 'native' : 'web',
    redirectUris,
    tokenEndpointAuthMethod: 'none',
    grantTypes,
    responseTypes: ['code'],
    // Scopes this server does not know (other servers' names) are ignored, not refused.
    scope: formatScopes(parseScopeString(doc.scope).filter(isScope)),
    loopbackOnly: redirectUris.every((uri) => checkRedirectUri(uri) === null),
  };
}

type RedirectVerdict = 'loopback' | 'same-origin-https' | 'other-scheme' | 'other-origin' | 'http-not-loopback' | 'malformed';

const REDIRECT_PROBLEMS: Record<Exclude<RedirectVerdict, 'loopback' | 'same-origin-https' | 'other-scheme'>, string> = {
  'other-origin': 'an https redirect_uri must be on the same origin as the client_id URL',
  'http-not-loopback': 'an http redirect_uri must point at a loopback address (127.0.0.1, [::1] or localhost)',
  malformed: 'a redirect_uri is not an absolute URI in normalized form without fragment or userinfo',
};

/**
 * Loopback URIs follow the rules of registered clients (clients/redirect-uri.ts). https URIs
 * must be on the client_id URL's origin (the draft: the server "SHOULD" check redirect_uris
 * against the client_id's origin, since that domain is the client's identity), exact and
 * normalized as RFC 9700 §4.1.1 exact matching needs.
 */
function classifyRedirectUri(uri: string, clientIdUrl: URL): RedirectVerdict {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'malformed';
  }
  if (url.protocol === 'http:') {
    const problem = checkRedirectUri(uri);
    if (problem === null) return 'loopback';
    return problem === 'not-loopback' ? 'http-not-loopback' : 'malformed';
  }
  if (url.protocol !== 'https:') return 'other-scheme';
  if (checkHttpsRedirectUri(uri) !== null) return 'malformed';
  return url.origin === clientIdUrl.origin ? 'same-origin-https' : 'other-origin';
}
