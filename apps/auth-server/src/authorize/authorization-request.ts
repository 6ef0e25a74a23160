import { isSha256Thumbprint } from '@platform/dpop';
import { isClientIdSyntax } from '@platform/contracts';
import {
  InvalidRequestError,
  InvalidTargetError,
  type OAuthError,
  UnauthorizedClientError,
  UnsupportedResponseTypeError,
} from '@platform/oauth-errors';
import { formatScopes } from '@platform/scopes';
import { matchesClientRedirectUri } from '../client-metadata-documents/redirect-uri-match';
import { type ClientScopePolicy, resolveRequestedScopes } from '../clients/scope-policy';
import type { RequestParams } from '../pages/request-params';
import { AUTHORIZATION_CODE_GRANT } from '../common/supported-grant-types';
import { MAX_RESOURCE_LENGTH, MAX_RESOURCES, resolveResource } from '../resources/resource-indicator';
import { AuthorizationRedirectError } from './errors';

/** What the authorization endpoint needs to know about a registered client. */
export interface AuthorizationClient {
  id: string;
  name: string | null;
  redirectUris: readonly string[];
  /** The registered scope as a default (and, for some clients, a ceiling): clients/scope-policy.ts. */
  scopePolicy: ClientScopePolicy;
  grantTypes: readonly string[];
  responseTypes: readonly string[];
  /** The client_id URL's host (metadata-document clients): shown on the consent page. */
  host?: string | null;
  /** Every redirect URI is loopback: the consent page says the app runs on this computer. */
  loopbackOnly?: boolean;
}

export interface AuthorizationRequestContext {
  findClient(clientId: string): Promise<AuthorizationClient | null>;
  /** config.apiResource: the canonical RFC 8707 resource. */
  apiResource: string;
}

/** The parameters this endpoint understands; others are ignored (RFC 6749 §3.1). */
export const AUTHORIZATION_PARAMETERS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'prompt',
  'max_age',
  'dpop_jkt',
] as const;

/** RFC 8707 §2 allows several resource parameters; every other parameter appears at most once. */
const MAY_REPEAT = new Set<string>(['resource']);

export type Prompt = 'none' | 'login' | 'consent' | 'select_account';
const PROMPTS = new Set<string>(['none', 'login', 'consent', 'select_account']);

/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is 43 characters; up to 128 as for a verifier. */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

export const MAX_STATE_LENGTH = 512;
export const MAX_NONCE_LENGTH = 512;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const MAX_REDIRECT_URI_LENGTH = 2000;
/** max_age in seconds: digits only, at most a year's worth (a longer one means no limit anyway). */
const MAX_AGE = /^\d{1,8}$/;

export interface AuthorizationRequest {
  client: AuthorizationClient;
  /** Exactly as sent (the loopback port may differ from the registered one). */
  redirectUri: string;
  state?: string;
  nonce?: string;
  /** Canonical order (catalogue order). */
  scopes: string[];
  /** formatScopes(scopes): what the grant stores. */
  scope: string;
  /** The canonical resource the tokens will be bound to. */
  resource: string;
  codeChallenge: string;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is bound to; its exchange needs a proof by that key. */
  dpopJkt?: string;
  prompts: ReadonlySet<Prompt>;
  /** OIDC max_age: the sign-in must be at most this many seconds old. */
  maxAgeSeconds?: number;
  /**
   * The recognised parameters as received, to carry through the login and consent forms.
   * They come back as form fields and are validated again, never trusted.
   */
  carried: ReadonlyArray<readonly [string, string]>;
}

/**
 * Validates an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2).
 *
 * client_id and redirect_uri come first. RFC 6749 §4.1.2.1: if they are missing or invalid
 * "the authorization server SHOULD inform the resource owner of the error and MUST NOT
 * automatically redirect the user-agent to the invalid redirection URI" — those errors are
 * thrown as plain OAuth errors (an error page). Every later error is thrown as an
 * AuthorizationRedirectError, which goes back to the client with its state.
 */
export async function validateAuthorizationRequest(
  params: RequestParams,
  context: AuthorizationRequestContext,
): Promise<AuthorizationRequest> {
  // ---- Errors the user sees: the client cannot be trusted with a redirect. ----
  const clientId = unredirectableSingle(params, 'client_id');
  // RFC 6749 Appendix A.1: client_id = *VSCHAR. Anything else cannot exist and is not looked up.
  const client = isClientIdSyntax(clientId) ? await context.findClient(clientId) : null;
  if (!client) {
    // The value is not echoed: an error page of this origin must not display attacker text.
    throw new InvalidRequestError('The client_id is not known to this server: the application is not registered');
  }
  const redirectUri = unredirectableSingle(params, 'redirect_uri');
  if (redirectUri.length > MAX_REDIRECT_URI_LENGTH || !matchesClientRedirectUri(client.redirectUris, redirectUri)) {
    throw new InvalidRequestError('The redirect_uri is not one of the redirect URIs registered for this application');
  }

  // ---- From here on, errors go back to the client. ----
  const stateValues = params.get('state') ?? [];
  const state =
    stateValues.length === 1 && stateValues[0].length <= MAX_STATE_LENGTH && !CONTROL_CHARACTERS.test(stateValues[0])
      ? stateValues[0]
      : undefined;
  const back = (error: OAuthError) => new AuthorizationRedirectError(error, redirectUri, state);
  if (stateValues.length > 1) throw back(repeated('state'));
  if (stateValues.length === 1 && stateValues[0].length > MAX_STATE_LENGTH) {
    throw back(new InvalidRequestError(`The state parameter is longer than ${MAX_STATE_LENGTH} characters`));
  }
  for (const name of AUTHORIZATION_PARAMETERS) {
    const values = params.get(name) ?? [];
    if (!MAY_REPEAT.has(name) && values.length > 1) throw back(repeated(name));
    // Values are carried in forms and stored (nonce); control characters have no business in any.
    if (values.some((value) => CONTROL_CHARACTERS.test(value))) {
      throw back(new InvalidRequestError(`The ${name} parameter contains control characters`));
    }
  }
  const single = (name: string): string | undefined => params.get(name)?.[0];

  const responseType = single('response_type');
  if (responseType === undefined) throw back(new InvalidRequestError('The response_type parameter is missing'));
  if (responseType !== 'code') throw back(new UnsupportedResponseTypeError('Only response_type=code is supported'));
  if (!client.responseTypes.includes('code') || !client.grantTypes.includes(AUTHORIZATION_CODE_GRANT)) {
    throw back(new UnauthorizedClientError('This client is not registered for the authorization code flow'));
  }

  // RFC 9700 §2.1.1: PKCE is required; only S256, since "plain" offers nothing once the
  // authorization request can be observed.
  const codeChallenge = single('code_challenge');
  const method = single('code_challenge_method');
  if (codeChallenge === undefined) throw back(new InvalidRequestError('code_challenge is required (PKCE with S256)'));
  if (method === undefined) throw back(new InvalidRequestError('code_challenge_method is required and must be S256'));
  if (method === 'plain') throw back(new InvalidRequestError('code_challenge_method=plain is not allowed; use S256'));
  if (method !== 'S256') throw back(new InvalidRequestError('Unsupported code_challenge_method; use S256'));
  if (!CODE_CHALLENGE.test(codeChallenge)) {
    throw back(new InvalidRequestError('code_challenge must be 43 to 128 characters of base64url (RFC 7636 section 4.2)'));
  }

  // RFC 6749 §3.3: the requested scope, else the registered default, else the least-privilege
  // default. The registered scope is no ceiling: the user's consent grants.
  let scopes: string[];
  try {
    scopes = resolveRequestedScopes(single('scope'), client.scopePolicy);
  } catch (error) {
    throw back(error as OAuthError);
  }

  const resources = params.get('resource') ?? [];
  if (resources.length > MAX_RESOURCES) throw back(new InvalidRequestError('Too many resource parameters'));
  if (resources.some((value) => value.length > MAX_RESOURCE_LENGTH)) {
    throw back(new InvalidRequestError(`The resource parameter is longer than ${MAX_RESOURCE_LENGTH} characters`));
  }
  let resource = context.apiResource;
  try {
    // Every URI under the platform's origin resolves to the one canonical resource.
    for (const requested of resources.length > 0 ? resources : [undefined]) {
      resource = resolveResource(context.apiResource, requested);
    }
  } catch (error) {
    if (error instanceof InvalidTargetError) throw back(error);
    throw error;
  }

  // RFC 9449 §10: dpop_jkt is "the JWK SHA-256 Thumbprint Confirmation Method value" (RFC 7638,
  // base64url SHA-256: 43 characters) of the key whose proof the code exchange must carry.
  const dpopJkt = single('dpop_jkt');
  if (dpopJkt !== undefined && !isSha256Thumbprint(dpopJkt)) {
    throw back(new InvalidRequestError('dpop_jkt must be a base64url SHA-256 JWK thumbprint (RFC 7638), 43 characters'));
  }

  const nonce = single('nonce');
  if (nonce !== undefined && nonce.length > MAX_NONCE_LENGTH) {
    throw back(new InvalidRequestError(`The nonce parameter is longer than ${MAX_NONCE_LENGTH} characters`));
  }

  const prompts = new Set<Prompt>();
  for (const value of (single('prompt') ?? '').split(' ')) {
    if (value === '') continue;
    if (!PROMPTS.has(value)) throw back(new InvalidRequestError('Unsupported prompt value'));
    prompts.add(value as Prompt);
  }
  // OpenID Connect Core §3.1.2.1: none "MUST NOT" be combined with any other value.
  if (prompts.has('none') && prompts.size > 1) throw back(new InvalidRequestError('prompt=none cannot be combined with other values'));

  const maxAge = single('max_age');
  if (maxAge !== undefined && !MAX_AGE.test(maxAge)) {
    throw back(new InvalidRequestError('The max_age parameter must be a whole number of seconds'));
  }

  const carried: [string, string][] = [];
  for (const name of AUTHORIZATION_PARAMETERS) {
    for (const value of params.get(name) ?? []) carried.push([name, value]);
  }

  return {
    client,
    redirectUri,
    state,
    nonce,
    scopes,
    scope: formatScopes(scopes),
    resource,
    codeChallenge: codeChallenge,
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
    prompts,
    maxAgeSeconds: maxAge === undefined ? undefined : Number(maxAge),
    carried,
  };
}

function unredirectableSingle(params: RequestParams, name: 'client_id' | 'redirect_uri'): string {
  const values = params.get(name) ?? [];
  if (values.length === 0) throw new InvalidRequestError(`The ${name} parameter is missing`);
  if (values.length > 1) throw repeated(name);
  return values[0];
}

/** RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once." */
function repeated(name: string): InvalidRequestError {
  return new InvalidRequestError(`The ${name} parameter is included more than once`);
}
