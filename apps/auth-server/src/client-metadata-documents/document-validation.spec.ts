import { validateMetadataDocument } from './document-validation';
import { MetadataDocumentError } from './errors';

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
      name: 'App',
      applicationType: 'web',
      redirectUris: ['https://app.example.com/cb'],
      tokenEndpointAuthMethod: 'none',
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
