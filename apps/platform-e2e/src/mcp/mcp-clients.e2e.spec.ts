/**
 * /mcp with MCP clients nobody here wrote, through the origin: the MCP TypeScript SDK v2 client
 * (2026-07-28), the v1 SDK client (2025-11-25) and mcp-remote each discover the authorization
 * server, register, get the person's consent on the real pages, call a private tool; the SDKs
 * step up on a 403 insufficient_scope and retry. oauth4webapi accepts the RFC 9728 document of
 * /mcp.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';
import { baseUrl } from '../support/platform';
import { Person, PersonDrivenProvider } from './form-walker-provider';
import { freePort } from '../../../../tools/test-support/free-port';

jest.setTimeout(120_000);

const mcpUrl = () => new URL(`${baseUrl()}/mcp`);
const metadataUrl = () => `${baseUrl()}/.well-known/oauth-protected-resource/mcp`;
/** The DPoP challenge's algs (RFC 9449 §7.1), offered beside Bearer on every 401. */
const ALGS = 'ES256 ES384 ES512 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA Ed25519';
const CATALOG_TOOLS = ['list_courses', 'search_courses', 'get_course', 'list_lecturers', 'list_events', 'list_membership_plans', 'list_digital_products', 'get_school_profile'];
const PRIVATE_TOOLS = ['list_students', 'get_student', 'list_student_enrollments', 'list_members', 'list_orders', 'list_security_events', 'revenue_report', 'enrollments_report', 'top_courses', 'list_coupons', 'create_coupon', 'create_course', 'update_course', 'add_section', 'add_lesson', 'create_event', 'create_post'];
const couponCode = (prefix: string) => `${prefix}${Date.now().toString(36).toUpperCase()}`.slice(0, 32);

describe('/mcp protected resource metadata (RFC 9728)', () => {
  it('names {base}/mcp exactly and lists the scopes of the MCP tools, without offline_access', async () => {
    const metadata = (await (await fetch(metadataUrl())).json()) as { resource: string; scopes_supported: string[] };
    expect(metadata).toMatchObject({ resource: `${baseUrl()}/mcp`, authorization_servers: [baseUrl()], bearer_methods_supported: ['header'] });
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['students:read', 'coupons:write', 'analytics:read']));
    expect(metadata.scopes_supported).not.toContain('offline_access');
    expect(metadata.scopes_supported).not.toContain('openid');
    expect(metadata.scopes_supported.length).toBeLessThan(38);
  });

  it('oauth4webapi accepts it for the resource {base}/mcp (RFC 9728 §3.3)', async () => {
    const resource = mcpUrl();
    const response = await oauth.resourceDiscoveryRequest(resource, { [oauth.allowInsecureRequests]: true });
    const metadata = await oauth.processResourceDiscoveryResponse(resource, response);
    expect(metadata.resource).toBe(`${baseUrl()}/mcp`);
  });

  it('the root document still names {base}', async () => {
    const metadata = (await (await fetch(`${baseUrl()}/.well-known/oauth-protected-resource`)).json()) as { resource: string };
    expect(metadata.resource).toBe(baseUrl());
  });
});

/** A POST to /mcp as a 2025-11-25 client sends it; a string body goes as it is. */
const post = (body: unknown, headers: Record<string, string> = {}) => {
  const sent: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers };
  if (sent['mcp-protocol-version'] === '') delete sent['mcp-protocol-version'];
  return fetch(mcpUrl(), { method: 'POST', headers: sent, body: typeof body === 'string' ? body : JSON.stringify(body) });
};
const toolsList = (headers: Record<string, string>) => post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);

describe('/mcp refusals through the origin', () => {

  it('an invalid token: 401 invalid_token naming the /mcp metadata', async () => {
    const response = await toolsList({ authorization: 'Bearer nope' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${metadataUrl()}", DPoP resource_metadata="${metadataUrl()}", algs="${ALGS}"`,
    );
  });

  it('a foreign Origin: 403', async () => {
    expect((await toolsList({ origin: 'https://evil.example' })).status).toBe(403);
  });

  it('a private tool without a token: 401 naming its scope, no OAuth error code, a JSON-RPC error body (RFC 6750 §3.1)', async () => {
    const response = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'list_orders', arguments: {} } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer scope="orders:read", resource_metadata="${metadataUrl()}", DPoP scope="orders:read", resource_metadata="${metadataUrl()}", algs="${ALGS}"`,
    );
    expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'The tool list_orders needs an access token with scope orders:read' }, id: 4 });
  });

  it.each([
    ['not JSON', '{"jsonrpc":"2.0",', 'Parse error: the body is not valid JSON'],
    ['a lone surrogate', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_courses","arguments":{"query":"\\ud800"}}}', 'Parse error: The JSON body has a string that is not well-formed Unicode (a lone UTF-16 surrogate)'],
  ])('a body that is %s: 400, a JSON-RPC parse error with id null', async (_case, body, message) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message }, id: null });
  });
});

describe('/mcp protocol revisions through the origin', () => {
  it.each(['2024-11-05', '2024-10-07'])('initialize for %s, not served: answered with 2025-11-25', async (version) => {
    const response = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old', version: '1' } } }, { 'mcp-protocol-version': '' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  });

  it('MCP-Protocol-Version 2024-11-05: 400 naming the revisions served', async () => {
    const response = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2024-11-05' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26');
  });
});

describe('/mcp from a web page (CORS) through the origin', () => {
  const preflight = (origin: string, path = '/mcp') =>
    fetch(`${baseUrl()}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,mcp-protocol-version,mcp-method,mcp-name' },
    });

  it('the platform’s own origin: granted by name, with the headers MCP clients send and the challenge readable', async () => {
    const response = await preflight(baseUrl());
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(baseUrl());
    expect(response.headers.get('vary')).toContain('Origin');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name']),
    );
    const call = await toolsList({ origin: baseUrl(), authorization: 'Bearer nope' });
    expect(call.status).toBe(401);
    expect(call.headers.get('access-control-allow-origin')).toBe(baseUrl());
    expect(call.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
  });

  it('another origin: the preflight is 403 and grants nothing; the API still grants any origin', async () => {
    const refused = await preflight('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const api = await preflight('https://evil.example', '/api/v1/courses');
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('the MCP SDK v2 client (2026-07-28)', () => {
  const provider = new PersonDrivenProvider(new Person(), 'e2e MCP SDK v2');
  const transport = new TransportV2(mcpUrl(), { authProvider: provider });
  const client = new ClientV2({ name: 'e2e-sdk-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

  afterAll(() => client.close());

  it('connects without initialize and lists every tool anonymously', async () => {
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...CATALOG_TOOLS, ...PRIVATE_TOOLS]);
  });

  it('a private tool: 401 → discovery, registration, consent, token → the call', async () => {
    await expect(client.callTool({ name: 'list_students', arguments: {} })).rejects.toThrow(UnauthorizedV2);
    expect(provider.registeredClientId()).toBeDefined();
    await transport.finishAuth(provider.takeCallback().searchParams);
    expect(provider.grantedScopes()).toContain('students:read');
    const students = await client.callTool({ name: 'list_students', arguments: { limit: 5 } });
    expect(students.isError).toBeFalsy();
    expect((students.structuredContent as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('step-up: 403 insufficient_scope → re-authorization for coupons:write → the retried call', async () => {
    const code = couponCode('V2');
    await expect(client.callTool({ name: 'create_coupon', arguments: { code, percent_off: 10 } })).rejects.toThrow(UnauthorizedV2);
    const consent = provider.person.consents.at(-1);
    expect(consent?.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['coupons:write']));
    await transport.finishAuth(provider.takeCallback().searchParams);
    expect(provider.grantedScopes()).toContain('coupons:write');
    const coupon = await client.callTool({ name: 'create_coupon', arguments: { code, percent_off: 10 } });
    expect(coupon.isError).toBeFalsy();
    expect(coupon.structuredContent).toMatchObject({ code, percent_off: 10 });
  });
});

describe('the MCP SDK v1 client (2025-11-25)', () => {
  const provider = new PersonDrivenProvider(new Person(), 'e2e MCP SDK v1');
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider as never });
  const client = new Client({ name: 'e2e-sdk-v1', version: '1.0.0' });

  afterAll(() => client.close());

  it('initializes at 2025-11-25 and lists every tool anonymously', async () => {
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...CATALOG_TOOLS, ...PRIVATE_TOOLS]);
  });

  it('a private tool: 401 → discovery, registration, consent, token → the call', async () => {
    await expect(client.callTool({ name: 'list_members', arguments: {} })).rejects.toThrow(UnauthorizedError);
    await transport.finishAuth(provider.takeCallback().searchParams.get('code') ?? '');
    expect(provider.grantedScopes()).toContain('members:read');
    const members = await client.callTool({ name: 'list_members', arguments: {} });
    expect(members.isError).toBeFalsy();
    expect((members.structuredContent as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('step-up: 403 insufficient_scope → re-authorization for coupons:write → the retried call', async () => {
    const code = couponCode('V1');
    // The v1 SDK (1.x) answers a 403 insufficient_scope by refreshing its token when it holds a
    // refresh token; a refresh cannot add scopes (RFC 6749 §6), so the retried call gets the same
    // challenge and the SDK gives up. (The v2 SDK re-authorizes for the union of the scopes.)
    await expect(client.callTool({ name: 'create_coupon', arguments: { code, percent_off: 15 } })).rejects.toThrow(
      /403 after trying upscoping/,
    );
    // What a v1 application does then: sign in again. Without a token the call is challenged
    // with 401 naming coupons:write; the SDK's own auth() sends the person to consent for it.
    provider.forgetTokens();
    await expect(client.callTool({ name: 'create_coupon', arguments: { code, percent_off: 15 } })).rejects.toThrow(UnauthorizedError);
    expect(provider.person.consents.at(-1)?.searchParams.get('scope')?.split(' ')).toContain('coupons:write');
    await transport.finishAuth(provider.takeCallback().searchParams.get('code') ?? '');
    expect(provider.grantedScopes()).toContain('coupons:write');
    const coupon = await client.callTool({ name: 'create_coupon', arguments: { code, percent_off: 15 } });
    expect(coupon.isError).toBeFalsy();
    expect(coupon.structuredContent).toMatchObject({ code, percent_off: 15 });
  });
});

describe('mcp-remote (npm), as a stdio proxy in front of /mcp', () => {
  const root = resolve(__dirname, '../../../..');
  const configDir = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
  const person = new Person();
  let stderr = '';
  let transport: StdioClientTransport;
  const client = new Client({ name: 'e2e-behind-mcp-remote', version: '1.0.0' });

  beforeAll(async () => {
    const callbackPort = await freePort();
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'node_modules/mcp-remote/dist/proxy.js'), `${baseUrl()}/mcp`, String(callbackPort), '--allow-http', '--host', '127.0.0.1'],
      // No browser here: `open` runs $BROWSER, which does nothing; the person opens the URL mcp-remote prints.
      env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: '/bin/true', DISPLAY: '' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
    (transport as unknown as { _process?: ChildProcess })._process?.kill();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('completes its OAuth flow against /mcp when a private tool needs it, then lists and calls the private tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(PRIVATE_TOOLS));

    const call = client.callTool({ name: 'list_students', arguments: {} });
    const authorizationUrl = await waitFor(() => /Please authorize this client by visiting:\s*(\S+)/.exec(stderr)?.[1], () => stderr);
    const callback = await person.authorize(authorizationUrl);
    expect(['127.0.0.1', 'localhost']).toContain(callback.hostname);
    // The browser would follow the redirect to mcp-remote's loopback callback server.
    expect((await fetch(callback)).status).toBeLessThan(400);

    const students = await call;
    expect(students.isError).toBeFalsy();
    expect((students.structuredContent as { data: unknown[] }).data.length).toBeGreaterThan(0);
    expect(stderr).toContain('Re-authorized with the remote server');
  });
});

async function waitFor<T>(probe: () => T | undefined, context: () => string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out; output so far:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

