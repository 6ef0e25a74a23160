/**
 * A hosted MCP client identified by a Client ID Metadata Document (CIMD,
 * draft-ietf-oauth-client-id-metadata-document), through the origin: the MCP SDK v2 client,
 * given `clientMetadataUrl`, sees `client_id_metadata_document_supported: true`, uses the URL as
 * its client_id (no registration), gets the person's consent on the real pages (which name the
 * client's host), calls a private tool at /mcp, refreshes, and after revocation its access token
 * gets 401 at /mcp. A second client, whose only redirect is loopback (VS Code's shape, with a
 * grant type the server ignores), is warned about on the consent page and completes too.
 *
 * The document is served over TLS by a local https server (127.0.0.1) whose certificate comes
 * from a test CA made by the global setup; only the platform started by the global setup trusts
 * it (CIMD_EXTRA_CA_FILE) and may fetch from loopback (CIMD_ALLOW_SPECIAL_USE_HOSTS), both refused
 * when NODE_ENV=production. A stack started elsewhere (E2E_BASE_URL) runs this suite only when
 * it was started with that CA and E2E_CIMD_TLS_DIR names its directory; otherwise it is skipped.
 */
import {
  auth,
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type AuthorizationServerMetadata,
} from '@modelcontextprotocol/client';
import { loadTestTls, TlsDocumentServer, type TestTls } from '../../../../tools/test-support/test-tls';
import { MCP_REDIRECT_URI } from '../mcp/form-walker-provider';
import { CIMD_TLS_DIR_VARIABLE } from '../support/global-setup';
import { baseUrl } from '../support/platform';
import { MetadataDocumentProvider, WatchfulPerson } from './cimd-provider';

jest.setTimeout(120_000);

const tlsDir = process.env[CIMD_TLS_DIR_VARIABLE];
const skipReason = tlsDir
  ? undefined
  : `${CIMD_TLS_DIR_VARIABLE} is not set: the platform at E2E_BASE_URL was not started with the test CA ` +
    '(CIMD_EXTRA_CA_FILE) and CIMD_ALLOW_SPECIAL_USE_HOSTS, so it cannot fetch client ID metadata documents ' +
    'from a local https server. Run without E2E_BASE_URL (the global setup starts such a platform).';
if (skipReason) console.warn(`CIMD end-to-end suite skipped: ${skipReason}`);
const describeWithTestCa = skipReason ? describe.skip : describe;

const mcpUrl = () => new URL(`${baseUrl()}/mcp`);
const DOCUMENT_PATH = '/oauth/mcp-client-metadata.json';
const CALLBACK_PATH = '/oauth/mcp-callback';

/** A JSON-RPC request straight to /mcp with a bearer token (no SDK in between). */
function listStudentsWith(accessToken: string) {
  return fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_students', arguments: { limit: 1 } } }),
  });
}

describeWithTestCa('an MCP client identified by its metadata document URL (CIMD), through the origin', () => {
  let tls: TestTls;
  let site: TlsDocumentServer;
  let clientId: string;
  let callbackUrl: string;
  let provider: MetadataDocumentProvider;
  let person: WatchfulPerson;
  let transport: StreamableHTTPClientTransport;
  const client = new Client({ name: 'e2e-cimd-sdk-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

  beforeAll(async () => {
    tls = loadTestTls(tlsDir as string);
    site = await new TlsDocumentServer(tls, '127.0.0.1').start();
    // A hosted client's shape (Claude.ai's): the callback is https on the document's own origin.
    callbackUrl = site.url(CALLBACK_PATH);
    clientId = site.json(DOCUMENT_PATH, (url: string) => ({
      client_id: url,
      client_name: 'e2e hosted MCP client',
      client_uri: site.url('/'),
      redirect_uris: [callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
    person = new WatchfulPerson();
    provider = new MetadataDocumentProvider(person, 'e2e hosted MCP client', clientId, callbackUrl);
    transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  });

  afterAll(async () => {
    await client.close();
    await site?.stop();
  });

  /** The authorization server metadata the SDK discovered (RFC 8414; OIDC-shaped metadata has no revocation member in its type). */
  const metadata = () =>
    (provider.discoveryState() as { authorizationServerMetadata: AuthorizationServerMetadata & { revocation_endpoint?: string } })
      .authorizationServerMetadata;

  it('a private tool: 401 → discovery (CIMD supported) → the URL as client_id, no registration → consent naming the host → the call', async () => {
    await client.connect(transport);
    await expect(client.callTool({ name: 'list_students', arguments: {} })).rejects.toThrow(UnauthorizedError);

    expect(metadata().client_id_metadata_document_supported).toBe(true);
    // The SDK took the URL as client_id instead of registering (registration would return a generated id).
    expect(provider.registeredClientId()).toBe(clientId);
    // The authorization server fetched the document over TLS from the client's site.
    expect(site.hitCount(DOCUMENT_PATH)).toBeGreaterThan(0);

    const authorization = person.consents.at(-1);
    expect(authorization?.searchParams.get('client_id')).toBe(clientId);
    expect(authorization?.searchParams.get('scope')?.split(' ')).toContain('students:read');
    // The MCP specification: the consent page shows the client's (redirect URI's) host.
    const consentPage = person.consentPages.at(-1) ?? '';
    expect(consentPage).toContain(`Application published by <strong>127.0.0.1:${site.port}</strong>`);
    expect(consentPage).toContain('e2e hosted MCP client');
    // Its redirect is https on its own site, not loopback: no "runs on your computer" warning.
    expect(consentPage).not.toContain('This application runs on your computer');

    const callback = provider.takeCallback();
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackUrl);
    await transport.finishAuth(callback.searchParams);
    expect(provider.grantedScopes()).toContain('students:read');
    expect(provider.refreshToken()).toBeDefined();

    const students = await client.callTool({ name: 'list_students', arguments: { limit: 5 } });
    expect(students.isError).toBeFalsy();
    expect((students.structuredContent as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('a refresh (by the SDK, with the URL as client_id) gives a new pair that works at /mcp', async () => {
    const before = { access: provider.accessToken(), refresh: provider.refreshToken() };
    expect(await auth(provider, { serverUrl: mcpUrl() })).toBe('AUTHORIZED');
    // No new consent: the refresh token was used.
    expect(person.consentPages).toHaveLength(1);
    expect(provider.accessToken()).not.toBe(before.access);
    expect(provider.refreshToken()).not.toBe(before.refresh);
    expect(provider.grantedScopes()).toContain('students:read');

    const students = await client.callTool({ name: 'list_students', arguments: { limit: 1 } });
    expect(students.isError).toBeFalsy();
  });

  it('revocation (RFC 7009, the public client names itself by its URL): the access token gets 401 at /mcp', async () => {
    const accessToken = provider.accessToken() as string;
    expect((await listStudentsWith(accessToken)).status).toBe(200);

    const revocationEndpoint = metadata().revocation_endpoint;
    expect(revocationEndpoint).toBe(`${baseUrl()}/api/oauth/revoke`);
    const revocation = await fetch(`${baseUrl()}/api/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.refreshToken() as string, token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(revocation.status).toBe(200);

    const refused = await listStudentsWith(accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');

    // The revoked refresh token is dead too: the SDK's refresh is refused with invalid_grant.
    const refresh = await fetch(metadata().token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: provider.refreshToken() as string, client_id: clientId }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a redirect_uri the document does not list gets an error page, never a redirect', async () => {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: `${callbackUrl}/elsewhere`,
      response_type: 'code',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const page = await fetch(`${metadata().authorization_endpoint}?${query}`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
  });
});

describeWithTestCa('a CIMD client whose only redirects are loopback (VS Code shape), through the origin', () => {
  let tls: TestTls;
  let site: TlsDocumentServer;
  let provider: MetadataDocumentProvider;
  let person: WatchfulPerson;
  let transport: StreamableHTTPClientTransport;
  const client = new Client({ name: 'e2e-cimd-loopback', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

  beforeAll(async () => {
    tls = loadTestTls(tlsDir as string);
    site = await new TlsDocumentServer(tls, '127.0.0.1').start();
    const clientId = site.json('/oauth/client-metadata.json', (url: string) => ({
      client_id: url,
      client_name: 'e2e desktop editor',
      redirect_uris: [MCP_REDIRECT_URI],
      // Listed by VS Code; this server does not support it and ignores it.
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }));
    person = new WatchfulPerson();
    provider = new MetadataDocumentProvider(person, 'e2e desktop editor', clientId, MCP_REDIRECT_URI);
    transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  });

  afterAll(async () => {
    await client.close();
    await site?.stop();
  });

  it('consent warns that the app runs on this computer; the flow completes with a loopback callback', async () => {
    await client.connect(transport);
    await expect(client.callTool({ name: 'list_students', arguments: {} })).rejects.toThrow(UnauthorizedError);
    const consentPage = person.consentPages.at(-1) ?? '';
    expect(consentPage).toContain(`Application published by <strong>127.0.0.1:${site.port}</strong>`);
    expect(consentPage).toContain('This application runs on your computer');

    const callback = provider.takeCallback();
    expect(`${callback.origin}${callback.pathname}`).toBe(MCP_REDIRECT_URI);
    await transport.finishAuth(callback.searchParams);
    const students = await client.callTool({ name: 'list_students', arguments: { limit: 1 } });
    expect(students.isError).toBeFalsy();
  });
});
