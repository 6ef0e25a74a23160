/**
 * /mcp's HTTP-level answers in the resource server as bootstrap.ts assembles it: the service's
 * own JSON parser (libs/service-runtime json-body.ts) and body limit, CORS, the Origin check with
 * MCP_ALLOWED_ORIGINS read from the environment.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { INPUT_LIMITS } from '@platform/service-runtime';
import { startTestResourceServer, type TestResourceServer } from '../../test/support/test-resource-server';

jest.setTimeout(60_000);

const AGENT_PAGE = 'https://agent.example.com';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

let server: TestResourceServer;
let app: NestFastifyApplication;

beforeAll(async () => {
  server = await startTestResourceServer({ env: { MCP_ALLOWED_ORIGINS: `${AGENT_PAGE}, http://localhost:6274` } });
  app = server.app;
});

afterAll(() => server?.close());

const post = (payload: string, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url: '/mcp', payload, headers: { ...HEADERS, ...headers } });

describe('a body the service refuses, at /mcp: a JSON-RPC error MCP clients read (not the OAuth body of the API)', () => {
  it.each([
    ['nested deeper than the limit', '['.repeat(INPUT_LIMITS.jsonDepth + 1) + ']'.repeat(INPUT_LIMITS.jsonDepth + 1), `Parse error: The JSON body is nested deeper than ${INPUT_LIMITS.jsonDepth} levels`],
    ['with a lone surrogate', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_courses","arguments":{"cursor":"\\ud800"}}}', 'Parse error: The JSON body has a string that is not well-formed Unicode (a lone UTF-16 surrogate)'],
    ['not JSON', '{"jsonrpc":"2.0",', 'Parse error: the body is not valid JSON'],
    ['a prototype-poisoning key', '{"jsonrpc":"2.0","id":1,"method":"tools/list","__proto__":{"x":1}}', 'Parse error: the body is not valid JSON'],
  ])('%s: 400, -32700, id null', async (_case, payload, message) => {
    const response = await post(payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message }, id: null });
  });

  it('over the body limit: 413 with a JSON-RPC error', async () => {
    const response = await post(`"${'x'.repeat(1024 * 1024)}"`);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  });

  it('the API keeps its RFC 6749-style answer for the same body', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/coupons', payload: '{"code":', headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('browser origins at /mcp (MCP_ALLOWED_ORIGINS)', () => {
  const preflight = (origin: string, url = '/mcp') =>
    app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-protocol-version' } });

  it.each([AGENT_PAGE, 'http://localhost:6274', 'http://127.0.0.1:9'])('%s (configured, or the public origin): granted by name, with Vary: Origin', async (origin) => {
    const response = await preflight(origin);
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(origin);
    expect(response.headers['vary']).toContain('Origin');
    expect(String(response.headers['access-control-allow-headers'])).toContain('MCP-Protocol-Version');
    const call = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { origin });
    expect(call.statusCode).toBe(200);
    expect(call.headers['access-control-allow-origin']).toBe(origin);
  });

  it('any other origin: 403 for the preflight and the request alike, no grant', async () => {
    const refused = await preflight('https://evil.example');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    const call = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { origin: 'https://evil.example' });
    expect(call.statusCode).toBe(403);
    expect(call.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: this Origin may not call the MCP endpoint' }, id: null });
  });

  it('an OPTIONS without Origin (not a browser, whatever its body): 204 in the CORS hook, like the API, granting no origin', async () => {
    const response = await app.inject({ method: 'OPTIONS', url: '/mcp?resource=x', payload: 'garbage', headers: { 'content-type': 'text/plain' } });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(String(response.headers['access-control-allow-methods'])).toContain('POST');
  });

  it('the API still grants any origin, without credentials', async () => {
    const response = await preflight('https://evil.example', '/api/v1/courses');
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });
});
