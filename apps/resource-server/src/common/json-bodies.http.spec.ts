/**
 * JSON bodies are bounded once, at the parser (libs/service-runtime json-body.ts), for every JSON
 * route of the API and /mcp (issue 33): a lone UTF-16 surrogate in a string is 400 invalid_request
 * on every write (it was a 500: PostgreSQL refuses the text), and a megabyte of nesting is a 400
 * before it is parsed (/mcp answered 500 after a second, from a stack overflow in the SDK).
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { BUSINESS_SCOPES } from '@platform/scopes';
// Test-only: the real authorization server issues the tokens and answers introspection.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTestAuthServer, type TestAuthServer } from '../../../auth-server/test/support/test-auth-server';
import { startTestResourceServer, type TestResourceServer } from '../../test/support/test-resource-server';
import { mintAccessToken } from '../../test/support/tokens';

jest.setTimeout(60_000);

const SURROGATE = { error: 'invalid_request', error_description: 'The JSON body has a string that is not well-formed Unicode (a lone UTF-16 surrogate)' };
const TOO_DEEP = { error: 'invalid_request', error_description: 'The JSON body is nested deeper than 64 levels' };

let auth: TestAuthServer;
let resource: TestResourceServer;
let app: NestFastifyApplication;
let token: string;
const ids = { course: '', post: '' };

const send = async (method: 'POST' | 'PATCH', url: string, payload: string) => {
  const response = await app.inject({ method, url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload });
  return { status: response.statusCode, body: response.json<Record<string, unknown>>() };
};

beforeAll(async () => {
  auth = await startTestAuthServer();
  resource = await startTestResourceServer({ authServerUrl: auth.issuer });
  app = resource.app;
  token = await mintAccessToken(auth, { userId: 'demo-owner', schoolId: 'demo-school', scopes: BUSINESS_SCOPES });
  ids.course = String((await send('POST', '/api/v1/courses', JSON.stringify({ title: 'Surrogates 101', price_cents: 0 }))).body['id']);
  ids.post = String((await send('POST', '/api/v1/posts', JSON.stringify({ title: 'On surrogates', author_name: 'Ada' }))).body['id']);
});

afterAll(async () => {
  await resource?.close();
  await auth?.close();
});

describe('a lone surrogate in a JSON string', () => {
  // Bodies the routes' schemas accept but for the surrogate: before, each reached the database and failed there.
  it.each([
    ['POST /courses', 'POST', '/api/v1/courses', { title: 'a\ud800', price_cents: 0 }],
    ['PATCH /courses/{id}', 'PATCH', () => `/api/v1/courses/${ids.course}`, { title: 'a\ud800' }],
    ['POST /students', 'POST', '/api/v1/students', { name: 'Grace \udc00', email: 'grace.surrogate@academy.test' }],
    ['POST /posts', 'POST', '/api/v1/posts', { title: 'Post', author_name: '\ud800Ada' }],
    ['PATCH /posts/{id}', 'PATCH', () => `/api/v1/posts/${ids.post}`, { body: 'x\udfffy' }],
    ['PATCH /school', 'PATCH', '/api/v1/school', { description: 'a\ud800' }],
    ['PATCH /account', 'PATCH', '/api/v1/account', { title: 'a\ud800' }],
    ['a key of a record (PATCH /school settings)', 'PATCH', '/api/v1/school', { settings: { 'k\ud800': true } }],
  ] as const)('%s: 400 invalid_request, not 500', async (_name, method, url, json) => {
    const response = await send(method, typeof url === 'function' ? url() : url, JSON.stringify(json));
    expect(response).toEqual({ status: 400, body: SURROGATE });
  });

  it('a well-formed pair (an emoji) is stored as sent', async () => {
    const response = await send('PATCH', `/api/v1/courses/${ids.course}`, JSON.stringify({ title: 'Fractions 😀' }));
    expect(response.status).toBe(200);
    expect(response.body['title']).toBe('Fractions 😀');
  });
});

describe('a megabyte of nested JSON (500,000 levels)', () => {
  const deep = '['.repeat(500_000) + ']'.repeat(500_000);

  it('is 400 at an API route', async () => {
    expect(await send('PATCH', '/api/v1/school', deep)).toEqual({ status: 400, body: TOO_DEEP });
  });

  it('is 400 at /mcp with a JSON-RPC parse error, as every body /mcp cannot parse (malformed JSON alike), not a 500', async () => {
    const TOO_DEEP_AT_MCP = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: The JSON body is nested deeper than 64 levels' }, id: null };
    for (const payload of [deep, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`]) {
      const response = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload });
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: TOO_DEEP_AT_MCP });
    }
  });
});
