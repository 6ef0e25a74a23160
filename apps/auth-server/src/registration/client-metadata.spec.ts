import { InvalidClientMetadataError, InvalidRedirectUriError } from '@platform/oauth-errors';
import { validateClientMetadata } from './client-metadata';

const loopback = ['http://127.0.0.1:8765/callback'];

describe('validateClientMetadata (RFC 7591)', () => {
  it('fills in the defaults of a public native client', () => {
    expect(validateClientMetadata({ redirect_uris: loopback })).toEqual({
      clientName: undefined,
      applicationType: 'native',
      dpopBoundAccessTokens: false,
      redirectUris: loopback,
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      // No registered default scope: requests without scope get the least-privilege default.
      scope: '',
    });
  });

  it('accepts offline_access (OpenID Connect Core §11)', () => {
    expect(validateClientMetadata({ redirect_uris: loopback, scope: 'offline_access openid' }).scope).toBe('openid offline_access');
  });

  it('keeps the requested scope in catalogue order', () => {
    expect(validateClientMetadata({ redirect_uris: loopback, scope: 'students:read openid courses:read' }).scope).toBe(
      'openid courses:read students:read',
    );
  });

  it.each(['client_secret_basic', 'client_secret_post'])('accepts a confidential client with %s', (method) => {
    expect(validateClientMetadata({ redirect_uris: loopback, token_endpoint_auth_method: method }).tokenEndpointAuthMethod).toBe(method);
  });

  it('ignores metadata it does not understand', () => {
    expect(validateClientMetadata({ redirect_uris: loopback, logo_uri: 'x', software_id: 1 }).redirectUris).toEqual(loopback);
  });

  it.each([
    ['no redirect_uris', {}],
    ['an empty list', { redirect_uris: [] }],
    ['a fixed https callback', { redirect_uris: ['https://app.example.com/callback'] }],
    ['a non-string', { redirect_uris: [42] }],
    ['too many URIs', { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1/cb${i}`) }],
    ['a fragment', { redirect_uris: ['http://127.0.0.1/cb#x'] }],
  ])('refuses %s with invalid_redirect_uri', (_name, body) => {
    expect(() => validateClientMetadata(body)).toThrow(InvalidRedirectUriError);
  });

  it.each([
    ['a non-object body', 'redirect_uris'],
    ['an array body', [loopback]],
    ['application_type web', { redirect_uris: loopback, application_type: 'web' }],
    ['client_secret_jwt', { redirect_uris: loopback, token_endpoint_auth_method: 'client_secret_jwt' }],
    ['the implicit grant', { redirect_uris: loopback, grant_types: ['implicit'] }],
    ['refresh_token alone', { redirect_uris: loopback, grant_types: ['refresh_token'] }],
    ['response_type token', { redirect_uris: loopback, response_types: ['token'] }],
    ['an unknown scope', { redirect_uris: loopback, scope: 'openid admin:everything' }],
    ['an empty client_name', { redirect_uris: loopback, client_name: '  ' }],
    ['a control character in client_name', { redirect_uris: loopback, client_name: 'a\u0007b' }],
    ['a bidi override in client_name', { redirect_uris: loopback, client_name: 'Acme\u202Eevil' }],
    ['a zero-width space in client_name', { redirect_uris: loopback, client_name: 'Ac\u200Bme' }],
    ['a 201-character client_name', { redirect_uris: loopback, client_name: 'x'.repeat(201) }],
  ])('refuses %s with invalid_client_metadata', (_name, body) => {
    expect(() => validateClientMetadata(body)).toThrow(InvalidClientMetadataError);
  });
});
