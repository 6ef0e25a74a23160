/**
 * The auth server's inputs at their bounds (issue 33), over HTTP: the parsers' own
 * (libs/service-runtime INPUT_LIMITS) and the endpoints' tighter ones, each a 400 invalid_request
 * or, at the authorization endpoint once the client is known, a redirect with the error.
 */
import { createHash, randomBytes } from 'node:crypto';
import { startTestAuthServer, type TestAuthServer } from '../../test/support/test-auth-server';

jest.setTimeout(60_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
let server: TestAuthServer;
let clientId: string;

const post = async (path: string, contentType: string, body: string) => {
  const response = await fetch(`${server.issuer}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body, redirect: 'manual' });
  const text = await response.text();
  return { status: response.status, location: response.headers.get('location'), json: () => JSON.parse(text) as Record<string, unknown> };
};
const register = (body: string) => post('/api/oauth/register', 'application/json', body);
const refusal = (description: string) => ({ error: 'invalid_request', error_description: description });

function authorizationForm(extra: [string, string][]): string {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const base: [string, string][] = [
    ['response_type', 'code'],
    ['client_id', clientId],
    ['redirect_uri', REDIRECT_URI],
    ['code_challenge', challenge],
    ['code_challenge_method', 'S256'],
    ['state', 'st'],
  ];
  return new URLSearchParams([...base, ...extra]).toString();
}

beforeAll(async () => {
  server = await startTestAuthServer();
  const registered = await register(JSON.stringify({ client_name: 'bounds', redirect_uris: [REDIRECT_URI] }));
  clientId = registered.json()['client_id'] as string;
});

afterAll(async () => {
  await server?.close();
});

describe('registration (JSON)', () => {
  it('refuses a client_name with a lone surrogate instead of storing and echoing it', async () => {
    const response = await register('{"client_name":"a\\ud800","redirect_uris":["http://127.0.0.1:8765/callback"]}');
    expect(response.status).toBe(400);
    expect(response.json()).toEqual(refusal('The JSON body has a string that is not well-formed Unicode (a lone UTF-16 surrogate)'));
  });

  it('refuses nesting deeper than 64 levels', async () => {
    const response = await register(`{"client_name":"x","redirect_uris":["${REDIRECT_URI}"],"extra":${'['.repeat(30_000)}${']'.repeat(30_000)}}`);
    expect(response.status).toBe(400);
    expect(response.json()).toEqual(refusal('The JSON body is nested deeper than 64 levels'));
  });
});

describe('the authorization endpoint (POST form)', () => {
  it('refuses a resource of 60,000 slashes at the parser, for its length (it used to block the server for seconds)', async () => {
    const response = await post('/oauth/authorize', 'application/x-www-form-urlencoded', `${authorizationForm([])}&resource=${server.issuer}/${'/'.repeat(60_000)}x`);
    expect(response.status).toBe(400);
    expect(response.json()).toEqual(refusal('A parameter value in the form body is longer than 8192 characters'));
  });

  it('sends a shorter run (5,000 slashes) back to the client: a resource is at most 2,000 characters', async () => {
    const response = await post('/oauth/authorize', 'application/x-www-form-urlencoded', `${authorizationForm([])}&resource=${server.issuer}/${'/'.repeat(5_000)}x`);
    expect(response.status).toBe(303);
    const location = new URL(response.location ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'The resource parameter is longer than 2000 characters',
      state: 'st',
      iss: server.issuer,
    });
  });

  it('refuses a parameter repeated a thousand times at the parser, before the endpoint', async () => {
    const response = await post('/oauth/authorize/login', 'application/x-www-form-urlencoded', authorizationForm(Array.from({ length: 1000 }, () => ['resource', server.issuer])));
    expect(response.status).toBe(400);
    expect(response.json()).toEqual(refusal('A parameter in the form body is repeated more than 16 times'));
  });

  it('refuses the same in the query string of a GET', async () => {
    const query = authorizationForm(Array.from({ length: 17 }, () => ['resource', server.issuer]));
    const response = await fetch(`${server.issuer}/oauth/authorize?${query}`, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(refusal('A parameter in the query is repeated more than 16 times'));
  });
});

describe('the token endpoint (form)', () => {
  const form = (extra: [string, string][]) =>
    post('/api/oauth/token', 'application/x-www-form-urlencoded', new URLSearchParams([['grant_type', 'authorization_code'], ['client_id', clientId], ['code', 'c'], ['redirect_uri', REDIRECT_URI], ['code_verifier', 'v'.repeat(43)], ...extra]).toString());

  it('refuses eleven resource parameters, and thirty at the parser (30 of 2,000 characters used to cost up to half a second)', async () => {
    const resources = (count: number) => Array.from({ length: count }, (): [string, string] => ['resource', `${server.issuer}/${'a'.repeat(1990)}`]);
    expect((await form(resources(11))).json()).toEqual(refusal('Too many resource parameters'));
    expect((await form(resources(30))).json()).toEqual(refusal('A parameter in the form body is repeated more than 16 times'));
  });

  it('keeps its own refusals: a resource over 2,000 characters, a repeated parameter', async () => {
    expect((await form([['resource', `${server.issuer}/${'a'.repeat(2000)}`]])).json()).toEqual(refusal('The resource parameter is malformed'));
    expect((await form([['code', 'again']])).json()).toEqual(refusal('The code parameter is repeated'));
  });
});
