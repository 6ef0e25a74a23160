import { formatScopes, isScope, parseScopeString } from '@platform/scopes';
import { z } from 'zod';
import type { ClientKeySource } from '../clients/client-key-source';
import { checkPublicKeySet, jwksUriProblem } from '../clients/public-key-set';
import { checkHttpsRedirectUri, checkRedirectUri } from '../clients/redirect-uri';
import { MetadataDocumentError } from './errors';
import { SUPPORTED_GRANT_TYPES } from '../common/supported-grant-types';

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
  /** none (a public client), or private_key_jwt with `keys`. */
  tokenEndpointAuthMethod: DocumentAuthMethod;
  /** private_key_jwt: the document's jwks, or its jwks_uri; null for a public client. */
  keys: ClientKeySource | null;
  grantTypes: ('authorization_code' | 'refresh_token')[];
  responseTypes: 'code'[];
  /** The document's known scopes, space-separated; '' when it names none (the server's default applies). */
  scope: string;
  /** Every usable redirect URI is a loopback one: the consent page warns. */
  loopbackOnly: boolean;
  /** RFC 9449 §5.2 dpop_bound_access_tokens: the client always uses DPoP; false when the document omits it. */
  dpopBoundAccessTokens: boolean;
}

/**
 * The token endpoint authentication methods a document may name. A document is public, so no
 * shared secret can be in it (the draft forbids client_secret and the client_secret_* methods);
 * a client that can keep a private key proves itself with it (private_key_jwt, RFC 7523).
 */
export type DocumentAuthMethod = 'none' | 'private_key_jwt';

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
  // MCP SEP-3149 (ChatGPT's documents): the methods the client can use, in no order.
  token_endpoint_auth_methods_supported: z.array(z.string().max(100)).max(20).optional(),
  jwks: z.unknown().optional(),
  jwks_uri: z.string().max(2000).optional(),
  grant_types: z.array(z.string().max(200)).max(20).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  application_type: z.string().max(50).optional(),
  scope: z.string().max(2000).optional(),
  dpop_bound_access_tokens: z.boolean().optional(),
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
  // and the client_secret_* methods (authMethodOf below).
  if ('client_secret' in raw || 'client_secret_expires_at' in raw) throw refuse('it must not contain a client_secret');
  const parsed = DocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue.path[0] ?? 'document');
    throw refuse(issue.code === 'invalid_type' && issue.input === undefined ? `${field} is required` : `${field} is invalid`);
  }
  const doc = parsed.data;
  const method = authMethodOf(doc, refuse);
  const keys = method === 'private_key_jwt' ? keySourceOf(doc, refuse) : null;

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
    tokenEndpointAuthMethod: method,
    keys,
    grantTypes,
    responseTypes: ['code'],
    // Scopes this server does not know (other servers' names) are ignored, not refused.
    scope: formatScopes(parseScopeString(doc.scope).filter(isScope)),
    loopbackOnly: redirectUris.every((uri) => checkRedirectUri(uri) === null),
    dpopBoundAccessTokens: doc.dpop_bound_access_tokens ?? false,
  };
}

type Document = z.infer<typeof DocumentSchema>;
type Refuse = (description: string) => MetadataDocumentError;

const SHARED_SECRET_METHODS: ReadonlySet<string> = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

/**
 * The method the client must use at the token endpoint. The singular token_endpoint_auth_method
 * (RFC 7591 §2) is binding when present. A document with only the plural
 * token_endpoint_auth_methods_supported (MCP SEP-3149: the methods the client can use) gets the
 * strongest of them that this server accepts: private_key_jwt when it publishes keys, else none.
 * Either way the client cannot fall back to a weaker method later: a private_key_jwt client must
 * send an assertion on every request (client-auth/client-authenticator.ts). No method at all
 * means none, the draft's public client.
 */
function authMethodOf(doc: Document, refuse: Refuse): DocumentAuthMethod {
  const named = doc.token_endpoint_auth_method;
  if (named !== undefined) {
    if (SHARED_SECRET_METHODS.has(named)) throw refuse(`token_endpoint_auth_method ${named} needs a shared secret, which a public document cannot hold: use none or private_key_jwt`);
    if (named !== 'none' && named !== 'private_key_jwt') throw refuse('token_endpoint_auth_method must be none or private_key_jwt');
    return named;
  }
  const supported = doc.token_endpoint_auth_methods_supported;
  if (supported === undefined) return 'none';
  if (supported.includes('private_key_jwt') && (doc.jwks !== undefined || doc.jwks_uri !== undefined)) return 'private_key_jwt';
  if (supported.includes('none')) return 'none';
  throw refuse('token_endpoint_auth_methods_supported names no method this server accepts (none, or private_key_jwt with jwks or jwks_uri)');
}

/** RFC 7591 §2: "The jwks_uri and jwks parameters MUST NOT both be present." */
function keySourceOf(doc: Document, refuse: Refuse): ClientKeySource {
  if (doc.jwks !== undefined && doc.jwks_uri !== undefined) throw refuse('jwks and jwks_uri must not both be present');
  if (doc.jwks_uri !== undefined) {
    const problem = jwksUriProblem(doc.jwks_uri);
    if (problem) throw refuse(problem);
    return { jwksUri: doc.jwks_uri };
  }
  if (doc.jwks === undefined) throw refuse('private_key_jwt needs the public keys: jwks or jwks_uri');
  const checked = checkPublicKeySet(doc.jwks);
  if ('problem' in checked) throw refuse(`jwks: ${checked.problem}`);
  return { jwks: checked.keySet };
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
