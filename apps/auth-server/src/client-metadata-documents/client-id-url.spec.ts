import { clientIdHost, isUrlClientId, parseClientIdUrl } from './client-id-url';
import { MetadataDocumentError } from './errors';

describe('isUrlClientId', () => {
  it.each([
    ['https://claude.ai/oauth/mcp-oauth-client-metadata', true],
    ['http://example.com/x', true],
    ['urn:example:client', true],
    ['Q2xpZW50SWRCYXNlNjR1cmw', false],
    ['resource-server', false],
  ])('%s → %s', (id, expected) => expect(isUrlClientId(id)).toBe(expected));
});

describe('parseClientIdUrl (draft: Client Identifier URL)', () => {
  it.each([
    'https://claude.ai/oauth/mcp-oauth-client-metadata',
    'https://vscode.dev/oauth/client-metadata.json',
    'https://app.example.com:8443/client.json',
    'https://app.example.com/client?tenant=1',
  ])('accepts %s', (id) => expect(parseClientIdUrl(id).href).toBe(id));

  it.each([
    ['http://app.example.com/client.json', 'must use https'],
    ['HTTPS://app.example.com/client.json', 'must use https'],
    ['https://app.example.com', 'must contain a path'],
    ['https://app.example.com/', 'must contain a path'],
    ['https://app.example.com/client.json#frag', 'fragment'],
    ['https://user:pw@app.example.com/client.json', 'username or password'],
    ['https://user@app.example.com/client.json', 'username or password'],
    ['https://app.example.com/a/../client.json', 'dot segments'],
    ['https://app.example.com/./client.json', 'dot segments'],
    ['https://app.example.com/a/%2e%2e/client.json', 'dot segments'],
    ['https://App.Example.com/client.json', 'normalized'],
    ['https://app.example.com:443/client.json', 'normalized'],
    ['https://app.example.com/' + 'x'.repeat(300), 'at most'],
    ['https://', 'not a valid URL'],
  ])('refuses %s (%s)', (id, reason) => {
    let error: unknown;
    try {
      parseClientIdUrl(id);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MetadataDocumentError);
    expect((error as MetadataDocumentError).description).toContain(reason);
    expect((error as MetadataDocumentError).error).toBe('invalid_client');
  });
});

describe('clientIdHost (the per-host limit key)', () => {
  it.each([
    ['https://claude.ai/oauth/mcp-oauth-client-metadata', 'claude.ai'],
    ['https://app.example.com:8443/c.json', 'app.example.com:8443'],
    ['Q2xpZW50SWRCYXNlNjR1cmw', null],
  ])('%s → %s', (id, host) => expect(clientIdHost(id)).toBe(host));
});
