/**
 * Every input has a bound: request bodies (64 KiB), the request line, the parameters of the
 * authorization request, and registration metadata. Past a bound the answer is a clean 4xx,
 * never a 5xx, never a redirect to an unregistered URI.
 */
import { connect } from 'node:net';
import { REDIRECT_URI, authorizationUrl, pkce, post, registerClient } from './support/oauth';
import { type HardenedAuthServer, startHardenedAuthServer } from './support/hardened-auth-server';

jest.setTimeout(60_000);

const KIB = 1024;
let server: HardenedAuthServer;
let clientId: string;

beforeAll(async () => {
  server = await startHardenedAuthServer({ env: { RATE_LIMITS_ENABLED: 'false' } });
  clientId = (await registerClient(server.url)).client_id;
});

afterAll(async () => {
  await server?.close();
});

/** A raw HTTP/1.1 exchange, for requests fetch will not send (oversized request lines). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(server.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    let response = '';
    socket.on('data', (chunk) => (response += chunk.toString('latin1')));
    socket.on('end', () => resolve(response));
    socket.on('close', () => resolve(response));
    socket.on('error', (error) => (response ? resolve(response) : reject(error)));
    socket.write(request);
    setTimeout(() => socket.end(), 2_000);
  });
}

describe('request bodies', () => {
  const endpoints: [string, string, string][] = [
    ['registration', '/api/oauth/register', 'application/json'],
    ['token', '/api/oauth/token', 'application/x-www-form-urlencoded'],
    ['revocation', '/api/oauth/revoke', 'application/x-www-form-urlencoded'],
    ['introspection', '/api/oauth/introspect', 'application/x-www-form-urlencoded'],
    ['userinfo', '/api/oauth/userinfo', 'application/x-www-form-urlencoded'],
    ['authorization (POST)', '/oauth/authorize', 'application/x-www-form-urlencoded'],
    ['login form', '/oauth/authorize/login', 'application/x-www-form-urlencoded'],
    ['consent form', '/oauth/authorize/consent', 'application/x-www-form-urlencoded'],
  ];

  it.each(endpoints)('%s: a body over 64 KiB is 413, not read further', async (_name, path, type) => {
    const body = type === 'application/json' ? JSON.stringify({ client_name: 'x'.repeat(64 * KIB) }) : `a=${'x'.repeat(64 * KIB)}`;
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    expect(response.status).toBe(413);
    const text = await response.text();
    if (response.headers.get('content-type')?.includes('application/json')) {
      expect(JSON.parse(text)).toEqual({ error: 'invalid_request', error_description: 'The request body is too large' });
    } else {
      expect(response.headers.get('content-type')).toContain('text/html');
    }
  });

  it('a body of exactly 64 KiB is read (and refused for its content, not its size)', async () => {
    // Filled with unknown parameters of at most 8,192 characters each (the form parser's bound on
    // one value): every byte is read, none of it is a value the parser refuses.
    const prefix = 'grant_type=refresh_token&client_id=nobody&refresh_token=x';
    const fillers: string[] = [];
    let length = prefix.length;
    for (let i = 0; length < 64 * KIB; i++) {
      const name = `&filler${i}=`;
      const value = 'x'.repeat(Math.min(8000, 64 * KIB - length - name.length));
      fillers.push(name + value);
      length += name.length + value.length;
    }
    const body = prefix + fillers.join('');
    expect(body.length).toBe(64 * KIB);
    const response = await post(`${server.url}/api/oauth/token`, Object.fromEntries(new URLSearchParams(body)));
    // Parsed: the client is looked at (and unknown), rather than the body refused for its size.
    expect(response.status).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('a body announced as huge is refused before it is sent', async () => {
    const response = await raw(
      `POST /api/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${10 * 1024 * 1024}\r\nConnection: close\r\n\r\ngrant_type=`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe('the authorization request', () => {
  const open = (extra: Record<string, string>) => fetch(authorizationUrl(server.url, clientId, pkce().challenge, extra), { redirect: 'manual' });

  it('a request line over the server limit is refused with a 4xx', async () => {
    const response = await raw(`GET /oauth/authorize?state=${'x'.repeat(100 * KIB)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 4(14|31|00) /);
  });

  it.each([
    ['state over 512 characters', { state: 'x'.repeat(513) }, 'invalid_request'],
    ['nonce over 512 characters', { nonce: 'x'.repeat(513) }, 'invalid_request'],
    ['scope over 4096 characters', { scope: 'openid '.repeat(600) }, 'invalid_scope'],
    ['code_challenge over 128 characters', { code_challenge: 'x'.repeat(129) }, 'invalid_request'],
    ['more than 10 resource parameters', {}, 'invalid_request'],
  ])('%s: an error back to the registered redirect URI', async (name, extra, error) => {
    let response: Response;
    if (name.startsWith('more than 10')) {
      const url = new URL(authorizationUrl(server.url, clientId, pkce().challenge));
      for (let i = 0; i < 11; i++) url.searchParams.append('resource', server.issuer);
      response = await fetch(url, { redirect: 'manual' });
    } else {
      response = await open(extra as Record<string, string>);
    }
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('error')).toBe(error);
  });

  it.each([
    ['redirect_uri over 2000 characters', { redirect_uri: `${REDIRECT_URI}?${'x'.repeat(2001)}` }],
    ['client_id over 256 characters', { client_id: 'x'.repeat(257) }],
  ])('%s: an error page, no redirect', async (_name, extra) => {
    const response = await open(extra);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toContain('text/html');
  });
});

describe('registration metadata', () => {
  const register = (metadata: Record<string, unknown>) =>
    post(`${server.url}/api/oauth/register`, { json: { redirect_uris: [REDIRECT_URI], ...metadata } });

  it.each([
    ['client_name over 200 characters', { client_name: 'x'.repeat(201) }, 'invalid_client_metadata'],
    ['scope over 2000 characters', { scope: 'openid '.repeat(300) }, 'invalid_client_metadata'],
    ['more than 10 redirect URIs', { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${8000 + i}/cb`) }, 'invalid_redirect_uri'],
    ['a redirect URI over 2000 characters', { redirect_uris: [`http://127.0.0.1/${'x'.repeat(2000)}`] }, 'invalid_redirect_uri'],
    ['more than two grant types', { grant_types: ['authorization_code', 'refresh_token', 'refresh_token'] }, 'invalid_client_metadata'],
  ])('%s is refused', async (_name, metadata, error) => {
    const response = await register(metadata);
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error });
  });

  it('at the bounds exactly, is accepted', async () => {
    const response = await register({
      client_name: 'x'.repeat(200),
      redirect_uris: Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:${8000 + i}/cb`),
    });
    expect(response.status).toBe(201);
  });

  it('ignores unknown members, however many (the body limit bounds them)', async () => {
    const extra = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`x_${i}`, i]));
    const response = await register(extra);
    expect(response.status).toBe(201);
    expect(Object.keys(response.json()).some((key) => key.startsWith('x_'))).toBe(false);
  });
});

describe('token endpoint parameters', () => {
  it.each([
    ['code', { code: 'x'.repeat(513), redirect_uri: REDIRECT_URI, code_verifier: 'v'.repeat(43) }],
    ['code_verifier', { code: 'x', redirect_uri: REDIRECT_URI, code_verifier: 'v'.repeat(257) }],
    ['redirect_uri', { code: 'x', redirect_uri: `${REDIRECT_URI}?${'x'.repeat(2000)}`, code_verifier: 'v'.repeat(43) }],
  ])('an overlong %s is invalid_request', async (name, fields) => {
    const response = await post(`${server.url}/api/oauth/token`, { grant_type: 'authorization_code', client_id: clientId, ...fields });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request', error_description: `The ${name} parameter is too long` });
  });
});
