import type { ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { OAUTH_PATHS as AS } from '@platform/contracts';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { ASSERTION_MAX_LIFETIME_SECONDS, CLIENT_ASSERTION_ALGORITHMS } from '../clients/client-assertion-rules';
import { JWT_BEARER_ASSERTION_TYPE } from '../client-auth/client-credentials';

/**
 * The schemas and answers the authorization server's endpoints share, in one place: the
 * operations' decorators (api-endpoints.ts) refer to them by `$ref`, and the generator
 * (authorization-server-document.ts) publishes them as the document's components. Shapes
 * follow libs/contracts and the RFCs each endpoint implements.
 */
export const AUTHORIZATION_SERVER_TAG = 'OAuth 2.0 authorization server';

/** The security schemes the operations name; the resource server's document defines `oauth2` (its scopes). */
export const OAUTH2_SCHEME = 'oauth2';
export const CLIENT_BASIC_SCHEME = 'clientBasic';

export const FORM = 'application/x-www-form-urlencoded';
export const HTML = 'text/html';

export const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
export const JSON_TYPE = 'application/json';

const string = (description: string, extra: SchemaObject = {}): SchemaObject => ({ type: 'string', description, ...extra });
const stringArray = (description: string, items: SchemaObject = { type: 'string' }): SchemaObject => ({
  type: 'array',
  description,
  items,
});
const uri = (description: string): SchemaObject => string(description, { format: 'uri' });

/** A registered client's id, or the https URL of its client ID metadata document (CIMD). */
export const CLIENT_ID_DESCRIPTION =
  'From registration, or an https URL serving the client’s metadata document (Client ID Metadata Documents; see client_id_metadata_document_supported)';

/** private_key_jwt (RFC 7523 §2.2): the two parameters of a client assertion, the same at every endpoint. */
const CLIENT_ASSERTION_PROPERTIES: Record<string, SchemaObject> = {
  client_assertion_type: string(`private_key_jwt clients: always \`${JWT_BEARER_ASSERTION_TYPE}\``, { enum: [JWT_BEARER_ASSERTION_TYPE] }),
  client_assertion: string(
    `private_key_jwt clients: a JWT signed with the client’s private key (${CLIENT_ASSERTION_ALGORITHMS.join(', ')}): ` +
      'iss and sub the client_id, aud the issuer identifier or the token endpoint URL (or an array holding one of them), ' +
      `exp at most ${ASSERTION_MAX_LIFETIME_SECONDS} seconds away, and a jti used once. Never together with client_secret or HTTP Basic`,
    { maxLength: 4096 },
  ),
};

export const NO_STORE: ResponseObject['headers'] = {
  'Cache-Control': { description: 'RFC 6749 §5.1: `no-store`', schema: { type: 'string', example: 'no-store' } },
};

/** Every 429 (RFC 6585 §4) says when to come back: Retry-After in seconds (RFC 9110 §10.2.3). */
export const RETRY_AFTER: ResponseObject['headers'] = {
  'Retry-After': { description: 'Seconds to wait before trying again (RFC 9110 §10.2.3)', schema: { type: 'integer', minimum: 1, example: 30 } },
};

export function json(description: string, schema: SchemaObject | ReferenceObject, headers?: ResponseObject['headers']): ResponseObject {
  return { description, ...(headers ? { headers } : {}), content: { [JSON_TYPE]: { schema } } };
}

export const OAUTH_SCHEMAS: Record<string, SchemaObject> = {
  OAuthError: {
    type: 'object',
    description: 'RFC 6749 §5.2 error response; every error of the platform has this shape.',
    required: ['error'],
    properties: {
      error: string(
        'An error code: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, ' +
          'invalid_scope, invalid_target (RFC 8707), invalid_redirect_uri and ' +
          'invalid_client_metadata (RFC 7591), invalid_token and insufficient_scope (RFC 6750), access_denied, ' +
          'invalid_dpop_proof and use_dpop_nonce (RFC 9449: a refused DPoP proof; a proof without the server nonce, which comes in DPoP-Nonce), ' +
          'server_error, temporarily_unavailable, too_many_requests (a request rate limit, with Retry-After), and for the API not_found, conflict.',
        { example: 'invalid_request' },
      ),
      error_description: string('Human-readable text for the developer; never contains secrets', {
        example: 'The code_verifier parameter is missing',
      }),
      error_uri: uri('A page about the error (not sent by this platform today)'),
    },
  },
  ClientRegistrationRequest: {
    type: 'object',
    description: 'RFC 7591 §2 client metadata.',
    required: ['redirect_uris'],
    properties: {
      client_name: string('Shown on the consent page', { maxLength: 200, example: 'My CLI' }),
      application_type: string('Only native applications (loopback redirects) are registered', { enum: ['native'] }),
      redirect_uris: {
        ...stringArray(
          'Loopback http URIs only, in normalized form: http://127.0.0.1:<port>/…, http://[::1]:<port>/…, http://localhost:<port>/…. The port may change at authorization (RFC 8252 §7.3).',
          { type: 'string', format: 'uri' },
        ),
        minItems: 1,
        example: ['http://127.0.0.1:8765/callback'],
      },
      token_endpoint_auth_method: string('`none` (public client, the default), `client_secret_basic` or `client_secret_post` (confidential: either way of sending the secret is then accepted)', {
        enum: ['none', 'client_secret_basic', 'client_secret_post'],
        default: 'none',
      }),
      grant_types: stringArray('Default: both', { type: 'string', enum: ['authorization_code', 'refresh_token'] }),
      response_types: stringArray('Default: ["code"]', { type: 'string', enum: ['code'] }),
      scope: string(
        'Space-separated scopes: the default of authorization requests that send no scope (RFC 6749 §3.3), not a limit (a client may ask for more later; the user’s consent decides). Without it, such requests ask for the least-privilege default `openid profile`. `offline_access` is accepted.',
        { example: 'openid profile courses:read' },
      ),
      dpop_bound_access_tokens: {
        type: 'boolean',
        default: false,
        description:
          'RFC 9449 §5.2: true makes DPoP mandatory for this client: a token request without a DPoP proof is refused (`invalid_dpop_proof`), so every access token is DPoP-bound',
      },
    },
  },
  ClientRegistrationResponse: {
    type: 'object',
    description: 'RFC 7591 §3.2.1 client information response.',
    required: [
      'client_id',
      'client_id_issued_at',
      'application_type',
      'redirect_uris',
      'token_endpoint_auth_method',
      'grant_types',
      'response_types',
    ],
    properties: {
      client_id: string('The new client identifier'),
      client_id_issued_at: { type: 'integer', description: 'Seconds since the epoch' },
      client_secret: string('Only for confidential clients, and only in this response'),
      client_secret_expires_at: { type: 'integer', enum: [0], description: '0: the secret does not expire' },
      client_name: string('As registered'),
      application_type: string('Always native', { enum: ['native'] }),
      redirect_uris: stringArray('As registered', { type: 'string', format: 'uri' }),
      token_endpoint_auth_method: string('As registered', { enum: ['none', 'client_secret_basic', 'client_secret_post'] }),
      grant_types: stringArray('As registered', { type: 'string', enum: ['authorization_code', 'refresh_token'] }),
      response_types: stringArray('As registered', { type: 'string', enum: ['code'] }),
      scope: string('The registered default scope; absent when none was registered'),
      dpop_bound_access_tokens: { type: 'boolean', description: 'RFC 9449 §5.2, as registered (false unless asked for)' },
    },
  },
  AuthorizationCodeTokenRequest: {
    type: 'object',
    description: 'RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5).',
    required: ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'client_id'],
    properties: {
      grant_type: string('The grant', { enum: ['authorization_code'] }),
      code: string('The code from the authorization response (single use, 60 s)'),
      redirect_uri: uri('Identical to the one of the authorization request'),
      code_verifier: string('The PKCE verifier: 43 to 128 characters of [A-Za-z0-9-._~]', {
        minLength: 43,
        maxLength: 128,
        pattern: '^[A-Za-z0-9._~-]{43,128}$',
      }),
      client_id: string(CLIENT_ID_DESCRIPTION),
      client_secret: string('Confidential clients, unless they send HTTP Basic (client_secret_basic) instead; never both'),
      ...CLIENT_ASSERTION_PROPERTIES,
      resource: uri('Optional (RFC 8707); must be the API or a URI under it (the audience was fixed at authorization)'),
    },
  },
  RefreshTokenRequest: {
    type: 'object',
    description:
      'RFC 6749 §6. The refresh token rotates: the answer carries a new one, and the one sent is retired. Within REFRESH_REUSE_GRACE_SECONDS (30 s by default) after a rotation, the token just rotated out still gets a new token pair of the same grant (parallel refreshes of one client); presented later, it revokes the whole grant (RFC 9700 §4.14.2).',
    required: ['grant_type', 'refresh_token', 'client_id'],
    properties: {
      grant_type: string('The grant', { enum: ['refresh_token'] }),
      refresh_token: string('The newest refresh token of the grant; an older one is answered only within the reuse window, and revokes the grant after it'),
      client_id: string(CLIENT_ID_DESCRIPTION),
      client_secret: string('Confidential clients, unless they send HTTP Basic (client_secret_basic) instead; never both'),
      ...CLIENT_ASSERTION_PROPERTIES,
      scope: string('Optional narrower scope for the new access token only'),
      resource: uri('Optional (RFC 8707); must be the API or a URI under it'),
    },
  },
  TokenRequest: {
    oneOf: [ref('AuthorizationCodeTokenRequest'), ref('RefreshTokenRequest')],
    discriminator: {
      propertyName: 'grant_type',
      mapping: {
        authorization_code: '#/components/schemas/AuthorizationCodeTokenRequest',
        refresh_token: '#/components/schemas/RefreshTokenRequest',
      },
    },
  },
  TokenResponse: {
    type: 'object',
    description: 'RFC 6749 §5.1, plus the OpenID Connect id_token when `openid` was granted.',
    required: ['access_token', 'token_type', 'expires_in', 'scope'],
    properties: {
      access_token: string('Send as `Authorization: Bearer <token>`, or `Authorization: DPoP <token>` with a DPoP proof when token_type is DPoP'),
      token_type: string(
        '`DPoP` when the request carried a DPoP proof (RFC 9449 §5): the access token is bound to the proof’s key (and a public client’s refresh token too); else `Bearer`',
        { enum: ['Bearer', 'DPoP'] },
      ),
      expires_in: { type: 'integer', description: 'Seconds until the access token expires', example: 3600 },
      refresh_token: string('The new refresh token; keep only the newest. Only for clients registered for the refresh_token grant'),
      scope: string('The scopes granted to the access token', { example: 'openid profile courses:read' }),
      id_token: string('RS256 JWT (OpenID Connect), when openid was granted'),
    },
  },
  RevocationRequest: {
    type: 'object',
    description: 'RFC 7009 §2.1.',
    required: ['token', 'client_id'],
    properties: {
      token: string('An access or refresh token of this client; any refresh token of a grant, current or already rotated out, ends the whole grant'),
      token_type_hint: string('Optional hint: access_token or refresh_token; other values are ignored'),
      client_id: string(CLIENT_ID_DESCRIPTION),
      client_secret: string('Confidential clients, unless they send HTTP Basic (client_secret_basic) instead; never both'),
      ...CLIENT_ASSERTION_PROPERTIES,
    },
  },
  IntrospectionRequest: {
    type: 'object',
    description:
      'RFC 7662 §2.1. The caller authenticates as a confidential client: its secret in the body (client_secret_post) or with HTTP Basic, or a client assertion (private_key_jwt).',
    required: ['token'],
    properties: {
      token: string('The token to describe'),
      token_type_hint: string('Optional hint: access_token or refresh_token; other values are ignored'),
      client_id: string('client_secret_post authentication (optional with a client assertion)'),
      client_secret: string('client_secret_post authentication'),
      ...CLIENT_ASSERTION_PROPERTIES,
    },
  },
  IntrospectionResponse: {
    type: 'object',
    description: 'RFC 7662 §2.2. Inactive tokens answer only `{"active": false}`.',
    required: ['active'],
    properties: {
      active: { type: 'boolean' },
      scope: string('Space-separated scopes'),
      client_id: string('The client the token was issued to'),
      sub: string('The user'),
      aud: uri('The resource (RFC 8707) the token is for'),
      iss: uri('The issuer'),
      exp: { type: 'integer', description: 'Expiry, seconds since the epoch' },
      iat: { type: 'integer', description: 'Issue time, seconds since the epoch' },
      token_type: string(
        'Bearer for an access token, DPoP for a DPoP-bound one (RFC 9449 §6.2); refresh_token when a client introspects its refresh token',
        { enum: ['Bearer', 'DPoP', 'refresh_token'] },
      ),
      cnf: {
        type: 'object',
        description: 'RFC 9449 §6.2 confirmation: for a DPoP-bound token only',
        required: ['jkt'],
        properties: {
          jkt: string('The RFC 7638 SHA-256 thumbprint (base64url) of the key the token is bound to: a DPoP proof must be signed by it', {
            pattern: '^[A-Za-z0-9_-]{43}$',
          }),
        },
      },
      school_id: string('The school (tenant) the token acts for'),
    },
  },
  UserInfoResponse: {
    type: 'object',
    description: 'OpenID Connect Core §5.3.2.',
    required: ['sub', 'school_id', 'role'],
    properties: {
      sub: string('The user'),
      name: string('With the profile scope'),
      email: string('With the email scope', { format: 'email' }),
      email_verified: { type: 'boolean', description: 'With the email scope' },
      school_id: string('The school the token acts for'),
      role: string('The user’s role in the school', { example: 'owner' }),
    },
  },
  AuthorizationServerMetadata: {
    type: 'object',
    description: 'RFC 8414 §2 authorization server metadata.',
    required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'scopes_supported', 'response_types_supported'],
    properties: {
      issuer: uri('The issuer identifier'),
      authorization_endpoint: uri(`GET ${AS.authorization}`),
      token_endpoint: uri(`POST ${AS.token}`),
      registration_endpoint: uri(`POST ${AS.registration}`),
      introspection_endpoint: uri(`POST ${AS.introspection}`),
      revocation_endpoint: uri(`POST ${AS.revocation}`),
      userinfo_endpoint: uri(`GET or POST ${AS.userinfo}`),
      jwks_uri: uri('The signing keys'),
      scopes_supported: stringArray('Every scope of the catalogue, then offline_access (OpenID Connect Core §11)'),
      response_types_supported: stringArray('["code"]'),
      response_modes_supported: stringArray('["query"]'),
      grant_types_supported: stringArray('authorization_code, refresh_token'),
      code_challenge_methods_supported: stringArray('["S256"]'),
      token_endpoint_auth_methods_supported: stringArray('none, client_secret_basic, client_secret_post, private_key_jwt'),
      token_endpoint_auth_signing_alg_values_supported: stringArray(`The algorithms of private_key_jwt assertions: ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`),
      revocation_endpoint_auth_methods_supported: stringArray('none, client_secret_basic, client_secret_post, private_key_jwt'),
      revocation_endpoint_auth_signing_alg_values_supported: stringArray('As token_endpoint_auth_signing_alg_values_supported'),
      introspection_endpoint_auth_methods_supported: stringArray('client_secret_post, client_secret_basic, private_key_jwt'),
      introspection_endpoint_auth_signing_alg_values_supported: stringArray('As token_endpoint_auth_signing_alg_values_supported'),
      authorization_response_iss_parameter_supported: { type: 'boolean', description: 'RFC 9207: true' },
      client_id_metadata_document_supported: {
        type: 'boolean',
        description: 'true: an https URL serving a client ID metadata document may be used as client_id without registration (CIMD_ENABLED)',
      },
      dpop_signing_alg_values_supported: stringArray(`RFC 9449 §5.1: the JWS algorithms of DPoP proofs, asymmetric only: ${DPOP_SIGNING_ALGORITHMS.join(', ')}`),
      service_documentation: uri('The authentication guide'),
    },
  },
  OpenIdProviderMetadata: {
    description: 'OpenID Connect Discovery 1.0 §3: the RFC 8414 members plus the ID token ones.',
    allOf: [
      ref('AuthorizationServerMetadata'),
      {
        type: 'object',
        properties: {
          id_token_signing_alg_values_supported: stringArray('["RS256"]'),
          subject_types_supported: stringArray('["public"]'),
          request_uri_parameter_supported: {
            type: 'boolean',
            description: 'false: request_uri is not supported (OpenID Connect Discovery §3: omitted would mean true)',
          },
          claims_supported: stringArray('The claims of ID tokens and userinfo'),
        },
      },
    ],
  },
  JsonWebKeySet: {
    type: 'object',
    description: 'RFC 7517 §5: the public keys that sign ID tokens.',
    required: ['keys'],
    properties: {
      keys: {
        type: 'array',
        items: {
          type: 'object',
          required: ['kty', 'kid'],
          properties: {
            kty: string('RSA'),
            kid: string('Key id'),
            use: string('sig'),
            alg: string('RS256'),
            n: string('Modulus, base64url'),
            e: string('Exponent, base64url'),
          },
        },
      },
    },
  },
};

/**
 * Browser-based clients: these endpoints answer CORS from any origin without credentials
 * (apps/auth-server/src/cors/cors-policy.ts); never the authorization endpoint nor introspection.
 */
export const CORS_NOTE =
  'CORS: any origin, without credentials (`Access-Control-Allow-Origin: *`; preflight for GET, HEAD, POST with Authorization, Content-Type, MCP-Protocol-Version, DPoP; WWW-Authenticate, Retry-After and DPoP-Nonce exposed).';

/**
 * Shared answers of protected operations (RFC 6750 §3): the userinfo operations here, and by
 * `$ref` every protected operation of the resource server (its operation-security.ts).
 */
export const BEARER_RESPONSES: Record<'Unauthorized' | 'InsufficientScope', ResponseObject> = {
  Unauthorized: {
    description:
      'No token (`WWW-Authenticate: Bearer …, DPoP algs="…"`: a challenge per scheme), an invalid, expired or revoked one (`error="invalid_token"`: ' +
      'also a DPoP-bound token sent as Bearer, or a proof by another key than the token’s), or a refused DPoP proof (`error="invalid_dpop_proof"` in the DPoP challenge)',
    headers: {
      'WWW-Authenticate': {
        description: 'RFC 6750 §3 and RFC 9449 §7.1 challenges (Bearer, then DPoP with `algs`), the error in the scheme the request used; resource_metadata (RFC 9728) at the resource server',
        schema: { type: 'string' },
      },
    },
    content: { [JSON_TYPE]: { schema: ref('OAuthError') } },
  },
  InsufficientScope: {
    description: 'The token lacks a scope: `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`; authorize again with those scopes',
    headers: {
      'WWW-Authenticate': { description: 'RFC 6750 §3 challenge naming the scopes needed', schema: { type: 'string' } },
    },
    content: { [JSON_TYPE]: { schema: ref('OAuthError') } },
  },
};

/** RFC 9449 §4.1: the proof of possession a DPoP request carries. */
export const DPOP_HEADER_DESCRIPTION =
  'A DPoP proof (RFC 9449 §4): a JWT of `typ` dpop+jwt signed by the client’s key (alg one of dpop_signing_alg_values_supported, the public key in `jwk`), ' +
  'with `htm` this request’s method, `htu` this endpoint’s URL as the discovery document gives it, `iat` now, a fresh `jti`';

/** RFC 9449 §8: the answer that asks for a proof carrying the server's nonce. */
export const DPOP_NONCE: ResponseObject['headers'] = {
  'DPoP-Nonce': { description: 'With `use_dpop_nonce` (RFC 9449 §8, DPOP_NONCES): the nonce to put in the retried request’s proof', schema: { type: 'string' } },
};

/**
 * The answer of a request rate limit (RFC 6585 §4) in the shape of every error, with its
 * Retry-After. The authorization server's operations describe their own 429 (what each is
 * keyed on); the resource server's limited operations refer to this one by `$ref`.
 */
export const RATE_LIMIT_RESPONSES: Record<'TooManyRequests', ResponseObject> = {
  TooManyRequests: {
    description:
      '`too_many_requests`: a request rate limit (writes per user once the token is validated; requests without a token per client address); wait for Retry-After seconds',
    headers: RETRY_AFTER,
    content: { [JSON_TYPE]: { schema: ref('OAuthError') } },
  },
};
