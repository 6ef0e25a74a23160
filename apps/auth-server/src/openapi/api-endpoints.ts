import { applyDecorators } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBody,
  ApiConsumes,
  ApiHeader,
  ApiIncludeEndpoint,
  ApiOAuth2,
  ApiOperation,
  ApiQuery,
  ApiResponse,
  type ApiResponseOptions,
  ApiSecurity,
  ApiTags,
  type ParameterObject,
  type ReferenceObject,
  type SchemaObject,
} from '@nestjs/swagger';
import {
  AUTHORIZATION_SERVER_TAG,
  BEARER_RESPONSES,
  CLIENT_BASIC_SCHEME,
  CLIENT_ID_DESCRIPTION,
  CORS_NOTE,
  DPOP_HEADER_DESCRIPTION,
  DPOP_NONCE,
  FORM,
  HTML,
  NO_STORE,
  OAUTH2_SCHEME,
  ref,
  RETRY_AFTER,
} from './oauth-schemas';

/**
 * One decorator per operation of the authorization server's OpenAPI description, put on the
 * controller's handler. The generator (authorization-server-document.ts) publishes only the
 * handlers that carry one (`onlyIncludeDecoratedEndpoints`): the sign-in and consent form posts,
 * the pages, health and metrics are not part of the API.
 */
interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  /** None: `security: []` (anonymous callers). Otherwise the decorators naming the schemes. */
  security?: MethodDecorator[];
}

function operation({ operationId, summary, description, security }: Operation, ...rest: MethodDecorator[]): MethodDecorator {
  return applyDecorators(
    ApiIncludeEndpoint(),
    ApiTags(AUTHORIZATION_SERVER_TAG),
    ApiOperation({ operationId, summary, ...(description ? { description } : {}), ...(security ? {} : { security: [] }) }),
    ...(security ?? []),
    ...rest,
  );
}

/**
 * Public clients send client_id alone; confidential ones HTTP Basic or client_secret in the body,
 * or a client assertion in the body (private_key_jwt: form parameters, so no security scheme).
 * Functions, not shared values: a swagger decorator keeps what it wrote, so one instance applied
 * to two handlers would repeat its entries on the second.
 */
const clientAuthentication = () => [ApiBasicAuth(CLIENT_BASIC_SCHEME), ApiSecurity({})];

const jsonResponse = (status: number, description: string, schema: SchemaObject | ReferenceObject, headers?: ApiResponseOptions['headers']) =>
  ApiResponse({ status, description, ...(headers ? { headers } : {}), schema });

const errorResponse = (status: number, description: string) => jsonResponse(status, description, ref('OAuthError'));

/** The DPoP proof header (RFC 9449 §4.1), optional on the endpoints that take one. */
const dpopHeader = (use: string) =>
  ApiHeader({ name: 'DPoP', required: false, description: `${DPOP_HEADER_DESCRIPTION}. ${use}`, schema: { type: 'string', pattern: '^[\\w-]+\\.[\\w-]+\\.[\\w-]+$' } });

const formBody = (schema: SchemaObject | ReferenceObject) => applyDecorators(ApiConsumes(FORM), ApiBody({ required: true, schema }));

/** A request rate limit's answer (RFC 6585 §4): the OAuth error body and Retry-After. */
const tooManyRequests = (description: string) => jsonResponse(429, `\`too_many_requests\`, with Retry-After: ${description}`, ref('OAuthError'), RETRY_AFTER);

/** Resolving a client whose client_id is a metadata document URL may meet its host's fetch budget. */
const DOCUMENT_FETCH_BUDGET = 'too many client ID metadata document fetches for the host of this client_id (every instance counts together)';

const unauthorizedClient = () =>
  errorResponse(
    401,
    '`invalid_client`: client authentication failed (also an unknown, removed or disabled client, a refused client ID metadata document, or a refused client assertion: its error_description says why)',
  );

export function ApiRegistrationEndpoint(): MethodDecorator {
  return operation(
    {
      operationId: 'oauth_register',
      summary: 'Register a client (RFC 7591)',
      description: `Loopback redirect URIs only; hosted clients use a client ID metadata document as client_id instead. ${CORS_NOTE}`,
    },
    ApiBody({ required: true, schema: ref('ClientRegistrationRequest') }),
    jsonResponse(201, 'The client information', ref('ClientRegistrationResponse'), NO_STORE),
    errorResponse(400, '`invalid_redirect_uri`, `invalid_client_metadata` or `invalid_request`'),
    tooManyRequests('too many registrations from this client address'),
  );
}

const AUTHORIZATION_PARAMETERS: ParameterObject[] = [
  { name: 'response_type', in: 'query', required: true, schema: { type: 'string', enum: ['code'] }, description: 'Only `code`' },
  { name: 'client_id', in: 'query', required: true, schema: { type: 'string' }, description: CLIENT_ID_DESCRIPTION },
  {
    name: 'redirect_uri',
    in: 'query',
    required: true,
    schema: { type: 'string', format: 'uri' },
    description:
      'A registered loopback redirect URI (the port may differ), one of a metadata document’s redirect_uris (https exactly, loopback except the port), or an integration’s exact https URI',
  },
  {
    name: 'scope',
    in: 'query',
    // In the schema: ApiQuery drops a parameter's own `example` when it has a schema.
    schema: { type: 'string', example: 'openid profile courses:read' },
    description:
      'Space-separated scopes; omitted: the client’s registered default scope, else `openid profile`. Registered scopes are no ceiling (step-up asks for more); offline_access is accepted',
  },
  { name: 'state', in: 'query', schema: { type: 'string', maxLength: 2000 }, description: 'Returned unchanged on the redirect; use it against CSRF' },
  {
    name: 'code_challenge',
    in: 'query',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43,128}$' },
    description: 'BASE64URL(SHA-256(code_verifier)) (RFC 7636)',
  },
  { name: 'code_challenge_method', in: 'query', required: true, schema: { type: 'string', enum: ['S256'] }, description: 'Only S256' },
  {
    name: 'resource',
    in: 'query',
    schema: { type: 'string', format: 'uri' },
    description: 'RFC 8707: the API (or a URI under it, such as /mcp); the token’s audience is always the API’s canonical URI',
  },
  { name: 'nonce', in: 'query', schema: { type: 'string' }, description: 'OpenID Connect: echoed in the ID token' },
  {
    name: 'prompt',
    in: 'query',
    schema: { type: 'string', enum: ['none', 'login', 'consent', 'select_account'] },
    description:
      'OpenID Connect prompt. `none` answers with the code when everything asked was approved before (else consent_required; login_required without a session); `consent` always shows the consent page; `login` and `select_account` ask for the password again',
  },
  {
    name: 'dpop_jkt',
    in: 'query',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    description:
      'RFC 9449 §10: the RFC 7638 SHA-256 thumbprint (base64url) of the client’s DPoP key; the code is then exchanged only with a DPoP proof signed by that key',
  },
];

const authorizeResponses = () =>
  applyDecorators(
  ApiResponse({ status: 200, description: 'The login page, then the consent page (HTML forms)', content: { [HTML]: { schema: { type: 'string' } } } }),
  ApiResponse({
    status: 303,
    description:
      'Back to the redirect URI with `code`, `state` and `iss` (RFC 9207; check that iss is the issuer), or with `error`, `error_description`, `state` and `iss`',
    headers: { Location: { description: 'The redirect URI with the response parameters', schema: { type: 'string', format: 'uri' } } },
  }),
  ApiResponse({
    status: 400,
    description:
      'An unknown client, a client ID metadata document that cannot be fetched or is invalid, or a redirect URI that is not registered: an HTML error page, never a redirect',
    content: { [HTML]: { schema: { type: 'string' } } },
  }),
  ApiResponse({
    status: 429,
    description: `An HTML error page with Retry-After: ${DOCUMENT_FETCH_BUDGET}`,
    headers: RETRY_AFTER,
    content: { [HTML]: { schema: { type: 'string' } } },
  }),
  );

/**
 * GET /oauth/authorize (RFC 6749 §4.1.1). The query parameters are described here, not read
 * from the handler's signature: it takes the raw request (pages/request-params.ts).
 */
export function ApiAuthorizeEndpoint(): MethodDecorator {
  return operation(
    {
      operationId: 'oauth_authorize',
      summary: 'Authorization endpoint (RFC 6749 §4.1.1, PKCE S256 required)',
      description: 'Opened in the user’s browser: sign-in, consent, then a redirect to the client.',
    },
    // ApiQuery's `required` defaults to true: the optional parameters say false.
    ...AUTHORIZATION_PARAMETERS.map(({ in: _in, required, ...parameter }) => ApiQuery({ ...parameter, required: required ?? false })),
    authorizeResponses(),
  );
}

/** POST /oauth/authorize, form-encoded (OpenID Connect Core §3.1.2.1): the same parameters in the body. */
export function ApiAuthorizeByPostEndpoint(): MethodDecorator {
  return operation(
    { operationId: 'oauth_authorize_post', summary: 'Authorization endpoint, form-encoded (OpenID Connect Core §3.1.2.1)' },
    formBody({
      type: 'object',
      required: AUTHORIZATION_PARAMETERS.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      properties: Object.fromEntries(
        AUTHORIZATION_PARAMETERS.map((parameter) => [parameter.name, { ...parameter.schema, description: parameter.description }]),
      ),
    }),
    authorizeResponses(),
  );
}

export function ApiTokenEndpoint(): MethodDecorator {
  return operation(
    {
      operationId: 'oauth_token',
      summary: 'Token endpoint: authorization_code and refresh_token grants (RFC 6749 §4.1.3, §6)',
      description: CORS_NOTE,
      security: clientAuthentication(),
    },
    dpopHeader(
      'With one, the access token is DPoP-bound (`token_type` DPoP), and so is a public client’s refresh token, which then refreshes only with a proof of the same key. ' +
        'Required for a client registered with dpop_bound_access_tokens, and to exchange a code requested with dpop_jkt (by that key)',
    ),
    formBody(ref('TokenRequest')),
    jsonResponse(200, 'Tokens', ref('TokenResponse'), NO_STORE),
    jsonResponse(
      400,
      '`invalid_request`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `invalid_target`, ' +
        '`invalid_dpop_proof` (RFC 9449 §5: a refused, missing or reused proof) or `use_dpop_nonce` (§8: retry with the nonce of DPoP-Nonce in the proof)',
      ref('OAuthError'),
      DPOP_NONCE,
    ),
    unauthorizedClient(),
    tooManyRequests(
      'too many requests from this client address, or too many of its requests that failed as guesses do; ' +
        'a grant or a user over its token budget (refused before the refresh token rotates: the same token works after Retry-After); ' +
        `an authenticated client over its own budget; or ${DOCUMENT_FETCH_BUDGET}`,
    ),
  );
}

export function ApiRevocationEndpoint(): MethodDecorator {
  return operation(
    {
      operationId: 'oauth_revoke',
      summary: 'Revoke a token (RFC 7009); any refresh token of a grant, current or rotated out, ends the whole grant',
      description: CORS_NOTE,
      security: clientAuthentication(),
    },
    formBody(ref('RevocationRequest')),
    jsonResponse(200, 'Revoked, or unknown (RFC 7009 §2.2: the answer is the same)', { type: 'object' }),
    errorResponse(400, '`invalid_request`'),
    unauthorizedClient(),
    tooManyRequests(DOCUMENT_FETCH_BUDGET),
  );
}

export function ApiIntrospectionEndpoint(): MethodDecorator {
  return operation(
    {
      operationId: 'oauth_introspect',
      summary: 'Introspect a token (RFC 7662): for resource servers and confidential clients',
      security: clientAuthentication(),
    },
    formBody(ref('IntrospectionRequest')),
    jsonResponse(200, 'The token’s state', ref('IntrospectionResponse'), NO_STORE),
    errorResponse(400, '`invalid_request`'),
    unauthorizedClient(),
    tooManyRequests(`too many introspections by this caller from this address; or ${DOCUMENT_FETCH_BUDGET}`),
  );
}

/** GET and POST (OpenID Connect Core §5.3.1): one operation each. */
export function ApiUserInfoEndpoint(operationId: 'oauth_userinfo' | 'oauth_userinfo_post'): MethodDecorator {
  return operation(
    {
      operationId,
      summary: 'The signed-in user (OpenID Connect Core §5.3); needs the openid scope',
      description: `200 on GET and POST. A DPoP-bound access token is sent as \`Authorization: DPoP <token>\` with a DPoP proof (RFC 9449 §7), a Bearer one as \`Authorization: Bearer <token>\`. ${CORS_NOTE}`,
      security: [ApiOAuth2(['openid'], OAUTH2_SCHEME)],
    },
    dpopHeader('With `Authorization: DPoP <token>` only: `ath` the base64url SHA-256 of the access token, signed by the key the token is bound to; each proof is accepted once'),
    jsonResponse(200, 'Claims, by the scopes granted', ref('UserInfoResponse'), NO_STORE),
    // Inline: ApiResponse cannot write a bare `$ref` response (it always adds a description).
    ApiResponse({ status: 401, ...BEARER_RESPONSES.Unauthorized }),
    ApiResponse({ status: 403, ...BEARER_RESPONSES.InsufficientScope }),
  );
}

function wellKnown(operationId: string, summary: string, schema: string): MethodDecorator {
  return operation({ operationId, summary, description: CORS_NOTE }, jsonResponse(200, summary, ref(schema)));
}

export const ApiAuthorizationServerMetadataEndpoint = (): MethodDecorator =>
  wellKnown('oauth_authorization_server_metadata', 'Authorization server metadata (RFC 8414)', 'AuthorizationServerMetadata');

export const ApiOpenIdConfigurationEndpoint = (): MethodDecorator =>
  wellKnown('openid_configuration', 'OpenID Connect discovery', 'OpenIdProviderMetadata');

export const ApiJwksEndpoint = (): MethodDecorator => wellKnown('jwks', 'The ID token signing keys (RFC 7517)', 'JsonWebKeySet');
