import { validateMetadataDocument } from './document-validation';
import { MetadataDocumentError } from './errors';

/** A public EC P-256 key (RFC 7517 §3's example key, without its private part). */
const PUBLIC_EC_KEY = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
  kid: 'key-1',
};

const URL_ID = new URL('https://app.example.com/oauth/client.json');
const valid = { client_id: URL_ID.href, client_name: 'App', redirect_uris: ['https://app.example.com/cb'] };

function problem(body: unknown): string {
  try {
    validateMetadataDocument(URL_ID, body);
  } catch (error) {
    if (error instanceof MetadataDocumentError) return error.description;
    throw error;
  }
  return 'accepted';
}

describe('validateMetadataDocument', () => {
  it('maps a minimal document to a public client with the defaults', () => {
    expect(validateMetadataDocument(URL_ID, valid)).toEqual({
      id: URL_ID.href,
      host: 'app.example.com',
      dpopBoundAccessTokens: false,
      name: 'App',
      applicationType: 'web',
      redirectUris: ['https://app.example.com/cb'],
      tokenEndpointAuthMethod: 'none',
      keys: null,
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      scope: '',
      loopbackOnly: false,
    });
  });

  it('ignores unknown members, unsupported grants and unknown scopes', () => {
    const client = validateMetadataDocument(URL_ID, {
      ...valid,
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code', 'implicit'],
      scope: 'openid profile mcp:tools other:thing',
      logo_uri: 'https://app.example.com/logo.png',
      software_statement: 'x',
    });
    expect(client.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    expect(client.scope.split(' ')).toEqual(expect.arrayContaining(['openid', 'profile']));
    expect(client.scope).not.toContain('other:thing');
  });

  it('a ChatGPT-shaped document: private_key_jwt binding, its keys at a jwks_uri on its origin, a per-connector callback', () => {
    const id = new URL('https://chatgpt.com/oauth/abc123/client.json');
    const client = validateMetadataDocument(id, {
      client_id: id.href,
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector/oauth/abc123'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // MCP SEP-3149: the plural lists what the client can use; the singular stays binding.
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://chatgpt.com/oauth/jwks.json',
    });
    expect(client).toMatchObject({
      tokenEndpointAuthMethod: 'private_key_jwt',
      keys: { jwksUri: 'https://chatgpt.com/oauth/jwks.json' },
      redirectUris: ['https://chatgpt.com/connector/oauth/abc123'],
    });
  });

  it('private_key_jwt with the public keys inline (jwks): only the members a verifier reads are kept', () => {
    const client = validateMetadataDocument(URL_ID, {
      ...valid,
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ ...PUBLIC_EC_KEY, use: 'sig', x5c: ['MIIB...'], note: 'ours' }] },
    });
    expect(client.tokenEndpointAuthMethod).toBe('private_key_jwt');
    expect(client.keys).toEqual({ jwks: { keys: [{ ...PUBLIC_EC_KEY, use: 'sig' }] } });
  });

  it.each([
    ['the plural alone with private_key_jwt and keys: private_key_jwt (the strongest it can use)', ['none', 'private_key_jwt'], true, 'private_key_jwt'],
    ['the plural alone with private_key_jwt but no keys: none', ['none', 'private_key_jwt'], false, 'none'],
    ['the plural alone with none: none', ['none'], false, 'none'],
  ])('%s', (_name, supported, withKeys, expected) => {
    const client = validateMetadataDocument(URL_ID, {
      ...valid,
      token_endpoint_auth_methods_supported: supported,
      ...(withKeys ? { jwks: { keys: [PUBLIC_EC_KEY] } } : {}),
    });
    expect(client.tokenEndpointAuthMethod).toBe(expected);
  });

  it('a public document that also publishes keys stays public (keys unused)', () => {
    expect(validateMetadataDocument(URL_ID, { ...valid, token_endpoint_auth_method: 'none', jwks: { keys: [PUBLIC_EC_KEY] } }).keys).toBeNull();
  });

  const withKeys = (extra: Record<string, unknown>) => ({ ...valid, token_endpoint_auth_method: 'private_key_jwt', ...extra });

  it.each([
    ['client_secret_basic', { ...valid, token_endpoint_auth_method: 'client_secret_basic' }, 'needs a shared secret'],
    ['client_secret_post', { ...valid, token_endpoint_auth_method: 'client_secret_post' }, 'needs a shared secret'],
    ['client_secret_jwt', { ...valid, token_endpoint_auth_method: 'client_secret_jwt' }, 'needs a shared secret'],
    ['tls_client_auth', { ...valid, token_endpoint_auth_method: 'tls_client_auth' }, 'must be none or private_key_jwt'],
    ['a plural naming only secrets', { ...valid, token_endpoint_auth_methods_supported: ['client_secret_basic'] }, 'names no method'],
    ['private_key_jwt without keys', withKeys({}), 'needs the public keys'],
    ['both jwks and jwks_uri (RFC 7591 §2)', withKeys({ jwks: { keys: [PUBLIC_EC_KEY] }, jwks_uri: 'https://app.example.com/jwks.json' }), 'must not both be present'],
    ['a private key in jwks', withKeys({ jwks: { keys: [{ ...PUBLIC_EC_KEY, d: 'jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI' }] } }), 'private key'],
    ['a symmetric key in jwks', withKeys({ jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }), 'symmetric key'],
    ['an empty jwks', withKeys({ jwks: { keys: [] } }), 'non-empty keys'],
    ['a jwks_uri over http', withKeys({ jwks_uri: 'http://app.example.com/jwks.json' }), 'must use https'],
    ['a jwks_uri with a fragment', withKeys({ jwks_uri: 'https://app.example.com/jwks.json#k' }), 'fragment'],
    ['a jwks_uri not in normalized form', withKeys({ jwks_uri: 'https://APP.example.com/jwks.json' }), 'normalized form'],
  ])('refuses %s', (_name, body, message) => {
    expect(problem(body)).toContain(message);
  });

  it.each([
    ['not an object', [valid], 'must be a JSON object'],
    ['client_id differs by a trailing slash', { ...valid, client_id: `${URL_ID.href}/` }, 'not exactly the URL'],
    ['client_id missing', { client_name: 'App', redirect_uris: ['https://app.example.com/cb'] }, 'not exactly the URL'],
    ['client_secret_expires_at present', { ...valid, client_secret_expires_at: 0 }, 'client_secret'],
    ['an empty client_name', { ...valid, client_name: '  ' }, 'client_name is invalid'],
    ['a bidi override in client_name', { ...valid, client_name: 'App\u202e' }, 'client_name is invalid'],
    ['an empty redirect_uris', { ...valid, redirect_uris: [] }, 'redirect_uris is invalid'],
    ['a redirect URI with a fragment', { ...valid, redirect_uris: ['https://app.example.com/cb#x'] }, 'normalized form'],
    ['a non-normalized https redirect URI', { ...valid, redirect_uris: ['https://APP.example.com/cb'] }, 'normalized form'],
    ['only private-use schemes', { ...valid, redirect_uris: ['app://callback'] }, 'no usable redirect_uris'],
    ['grant_types without authorization_code', { ...valid, grant_types: ['refresh_token'] }, 'must include authorization_code'],
    ['response_types without code', { ...valid, response_types: ['token'] }, 'must include code'],
  ])('refuses %s', (_name, body, message) => {
    expect(problem(body)).toContain(message);
  });
});
