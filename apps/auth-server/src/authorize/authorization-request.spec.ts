import { InvalidRequestError } from '@platform/oauth-errors';
import {
  type AuthorizationClient,
  type AuthorizationRequest,
  validateAuthorizationRequest,
} from './authorization-request';
import { selfRegisteredScopePolicy } from '../clients/scope-policy';
import { paramsFromBody, paramsFromUrl, type RequestParams } from '../pages/request-params';
import { AuthorizationRedirectError } from './errors';

const API = 'http://127.0.0.1:3000';
const REDIRECT = 'http://127.0.0.1:8765/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

const client: AuthorizationClient = {
  id: 'client-1',
  name: 'Lesson Planner CLI',
  redirectUris: [REDIRECT, 'http://localhost:9000/cb?app=1'],
  scopePolicy: selfRegisteredScopePolicy('openid profile email students:read courses:read'),
  grantTypes: ['authorization_code', 'refresh_token'],
  responseTypes: ['code'],
};

const context = {
  apiResource: API,
  findClient: async (id: string) => (id === client.id ? client : null),
};

const VALID: Record<string, string> = {
  client_id: client.id,
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid students:read',
  state: 'state-123',
  nonce: 'nonce-456',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
};

/** The valid request with some parameters replaced (string), removed (null) or repeated (array). */
function request(changes: Record<string, string | string[] | null> = {}): RequestParams {
  const search = new URLSearchParams();
  const merged: Record<string, string | string[] | null> = { ...VALID, ...changes };
  for (const [name, value] of Object.entries(merged)) {
    if (value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, v);
  }
  return paramsFromUrl(`/oauth/authorize?${search.toString()}`);
}

async function outcome(params: RequestParams): Promise<AuthorizationRequest | Error> {
  try {
    return await validateAuthorizationRequest(params, context);
  } catch (error) {
    return error as Error;
  }
}

describe('validateAuthorizationRequest', () => {
  it('accepts a valid request and canonicalizes scope and resource', async () => {
    const result = await outcome(request({ scope: 'students:read openid openid', resource: `${API}/mcp` }));
    expect(result).toMatchObject({
      client: { id: client.id },
      redirectUri: REDIRECT,
      state: 'state-123',
      nonce: 'nonce-456',
      scopes: ['openid', 'students:read'],
      scope: 'openid students:read',
      resource: API,
      codeChallenge: CHALLENGE,
    });
  });

  it('step-up: a scope beyond the registered one is asked for (the registered scope is a default, not a ceiling), with the read scope a write scope includes', async () => {
    const result = (await outcome(request({ scope: 'openid students:write offline_access' }))) as AuthorizationRequest;
    expect(result.scope).toBe('openid students:read students:write offline_access');
  });

  it('keeps a dpop_jkt (RFC 9449 §10) for the code, and carries it through the forms', async () => {
    const jkt = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
    const result = (await outcome(request({ dpop_jkt: jkt }))) as AuthorizationRequest;
    expect(result.dpopJkt).toBe(jkt);
    expect(result.carried).toContainEqual(['dpop_jkt', jkt]);
  });

  it('uses the client’s registered scope when scope is absent', async () => {
    const result = (await outcome(request({ scope: null }))) as AuthorizationRequest;
    expect(result.scope).toBe('openid profile email courses:read students:read');
  });

  it('accepts any port on a loopback redirect URI (RFC 8252 §7.3)', async () => {
    const result = (await outcome(request({ redirect_uri: 'http://127.0.0.1:51234/callback' }))) as AuthorizationRequest;
    expect(result.redirectUri).toBe('http://127.0.0.1:51234/callback');
  });

  it('carries the recognised parameters as received, and only those', async () => {
    const result = (await outcome(request({ extra: 'ignored', resource: [`${API}/mcp`, `${API}/api/v1`] }))) as AuthorizationRequest;
    expect(result.carried).toEqual([
      ['client_id', client.id],
      ['redirect_uri', REDIRECT],
      ['response_type', 'code'],
      ['scope', 'openid students:read'],
      ['state', 'state-123'],
      ['nonce', 'nonce-456'],
      ['code_challenge', CHALLENGE],
      ['code_challenge_method', 'S256'],
      ['resource', `${API}/mcp`],
      ['resource', `${API}/api/v1`],
    ]);
  });

  describe('errors shown as a page, never redirected', () => {
    it.each([
      ['missing client_id', { client_id: null }, 'The client_id parameter is missing'],
      ['unknown client_id', { client_id: 'nobody' }, 'The client_id is not known to this server'],
      ['repeated client_id', { client_id: [client.id, client.id] }, 'The client_id parameter is included more than once'],
      ['missing redirect_uri', { redirect_uri: null }, 'The redirect_uri parameter is missing'],
      ['unregistered redirect_uri', { redirect_uri: 'http://127.0.0.1:8765/elsewhere' }, 'The redirect_uri is not one'],
      ['redirect_uri on another host', { redirect_uri: 'http://evil.example/callback' }, 'The redirect_uri is not one'],
      ['redirect_uri with a changed query', { redirect_uri: 'http://localhost:9000/cb?app=2' }, 'The redirect_uri is not one'],
      ['repeated redirect_uri', { redirect_uri: [REDIRECT, REDIRECT] }, 'The redirect_uri parameter is included more than once'],
      // Checked before anything else, so even a broken rest of the request is not redirected.
      ['bad redirect_uri and bad PKCE', { redirect_uri: 'http://127.0.0.1/x', code_challenge: null }, 'The redirect_uri is not one'],
    ])('%s', async (_name, changes, message) => {
      const result = await outcome(request(changes));
      expect(result).toBeInstanceOf(InvalidRequestError);
      expect(result).not.toBeInstanceOf(AuthorizationRedirectError);
      expect((result as InvalidRequestError).description).toContain(message);
    });
  });

  describe('errors redirected to the client', () => {
    it.each([
      ['missing response_type', { response_type: null }, 'invalid_request', 'The response_type parameter is missing'],
      ['response_type=token', { response_type: 'token' }, 'unsupported_response_type', 'Only response_type=code is supported'],
      ['missing PKCE', { code_challenge: null, code_challenge_method: null }, 'invalid_request', 'code_challenge is required (PKCE with S256)'],
      ['missing code_challenge', { code_challenge: null }, 'invalid_request', 'code_challenge is required (PKCE with S256)'],
      ['missing code_challenge_method', { code_challenge_method: null }, 'invalid_request', 'code_challenge_method is required and must be S256'],
      ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method=plain is not allowed; use S256'],
      ['unknown PKCE method', { code_challenge_method: 'S512' }, 'invalid_request', 'Unsupported code_challenge_method; use S256'],
      ['challenge too short', { code_challenge: 'a'.repeat(42) }, 'invalid_request', 'code_challenge must be 43 to 128'],
      ['challenge too long', { code_challenge: 'a'.repeat(129) }, 'invalid_request', 'code_challenge must be 43 to 128'],
      ['challenge not base64url', { code_challenge: `${'a'.repeat(42)}+` }, 'invalid_request', 'code_challenge must be 43 to 128'],
      ['unknown scope', { scope: 'openid admin:everything' }, 'invalid_scope', 'Unknown scope: admin:everything'],
      ['resource elsewhere', { resource: 'https://evil.example/api' }, 'invalid_target', 'Unknown resource'],
      ['relative resource', { resource: '/api' }, 'invalid_target', 'must be an absolute URI'],
      ['resource with fragment', { resource: `${API}/mcp#x` }, 'invalid_target', 'must not have a fragment'],
      ['one bad resource among good ones', { resource: [`${API}/mcp`, 'https://evil.example'] }, 'invalid_target', 'Unknown resource'],
      ['eleven resources', { resource: Array.from({ length: 11 }, () => `${API}/mcp`) }, 'invalid_request', 'Too many resource parameters'],
      ['a resource over 2000 characters', { resource: `${API}/${'a'.repeat(2000)}` }, 'invalid_request', 'The resource parameter is longer than 2000 characters'],
      // Issue 33: 60,000 slashes cost seconds in the old trailing-slash regex; now refused by length first.
      ['a resource of 60,000 slashes', { resource: `${API}/${'/'.repeat(60_000)}x` }, 'invalid_request', 'The resource parameter is longer than 2000 characters'],
      ['repeated scope', { scope: ['openid', 'openid'] }, 'invalid_request', 'The scope parameter is included more than once'],
      ['repeated code_challenge', { code_challenge: [CHALLENGE, CHALLENGE] }, 'invalid_request', 'The code_challenge parameter is included more than once'],
      ['repeated response_type', { response_type: ['code', 'code'] }, 'invalid_request', 'The response_type parameter is included more than once'],
      ['nonce too long', { nonce: 'n'.repeat(513) }, 'invalid_request', 'The nonce parameter is longer than 512 characters'],
      ['unknown prompt', { prompt: 'sometimes' }, 'invalid_request', 'Unsupported prompt value'],
      ['prompt=none with another value', { prompt: 'none login' }, 'invalid_request', 'prompt=none cannot be combined'],
      ['dpop_jkt not a SHA-256 thumbprint', { dpop_jkt: 'a'.repeat(42) }, 'invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint'],
      ['dpop_jkt with padding', { dpop_jkt: `${'a'.repeat(42)}=` }, 'invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint'],
      ['repeated dpop_jkt', { dpop_jkt: ['a'.repeat(43), 'b'.repeat(43)] }, 'invalid_request', 'The dpop_jkt parameter is included more than once'],
    ])('%s', async (_name, changes, error, message) => {
      const result = await outcome(request(changes));
      expect(result).toBeInstanceOf(AuthorizationRedirectError);
      const redirect = result as AuthorizationRedirectError;
      expect(redirect.oauthError.error).toBe(error);
      expect(redirect.oauthError.description).toContain(message);
      expect(redirect.redirectUri).toBe(REDIRECT);
      expect(redirect.state).toBe('state-123');
    });

    it('does not echo a repeated state, and refuses it', async () => {
      const result = (await outcome(request({ state: ['a', 'b'] }))) as AuthorizationRedirectError;
      expect(result.oauthError.description).toBe('The state parameter is included more than once');
      expect(result.state).toBeUndefined();
    });

    it('does not echo an overlong state, and refuses it', async () => {
      const result = (await outcome(request({ state: 's'.repeat(513) }))) as AuthorizationRedirectError;
      expect(result.oauthError.description).toBe('The state parameter is longer than 512 characters');
      expect(result.state).toBeUndefined();
    });

    it('refuses a client that is not registered for the code flow', async () => {
      const restricted = { ...client, grantTypes: ['client_credentials'] };
      const result = await validateAuthorizationRequest(request(), { ...context, findClient: async () => restricted }).catch(
        (error: unknown) => error,
      );
      expect((result as AuthorizationRedirectError).oauthError.error).toBe('unauthorized_client');
    });
  });

  it('treats parameters without a value as omitted (RFC 6749 §3.1)', async () => {
    const result = (await outcome(request({ state: '', scope: '' }))) as AuthorizationRequest;
    expect(result.state).toBeUndefined();
    expect(result.scope).toBe('openid profile email courses:read students:read');
  });

  it('sees repetitions in a form body as well', async () => {
    const result = await outcome(paramsFromBody({ ...VALID, scope: ['openid', 'email'] }));
    expect((result as AuthorizationRedirectError).oauthError.description).toBe(
      'The scope parameter is included more than once',
    );
  });

  it('refuses a form body whose values are not strings', async () => {
    const result = await outcome(paramsFromBody({ ...VALID, client_id: { $ne: null } }));
    expect(result).toBeInstanceOf(InvalidRequestError);
  });
});

describe('control characters', () => {
  it.each(['state', 'nonce', 'scope'])('refuses them in %s, with a redirect', async (name) => {
    const result = (await outcome(request({ [name]: 'abc\u0000def' }))) as AuthorizationRedirectError;
    expect(result).toBeInstanceOf(AuthorizationRedirectError);
    expect(result.oauthError.description).toBe(`The ${name} parameter contains control characters`);
  });

  it('never looks up a client_id with them', async () => {
    const findClient = jest.fn(context.findClient);
    const result = await validateAuthorizationRequest(request({ client_id: 'client-1\u0000' }), { ...context, findClient }).catch(
      (error: unknown) => error,
    );
    expect(result).toBeInstanceOf(InvalidRequestError);
    expect(findClient).not.toHaveBeenCalled();
  });
});
