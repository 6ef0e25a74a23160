/**
 * Token confusion through the one origin: every credential works only as what it is, for whom
 * it was issued, where it was meant to be used.
 */
import { OTHER } from '../support/oauth-client';
import { bearer, exchange, form, authorize, isActive, pkce, register, registerConfidential, REDIRECT_URI, send, tokensFor, type RegisteredClient, type Tokens } from './support';

jest.setTimeout(120_000);

const INVALID_TOKEN = { error: 'invalid_token', error_description: expect.any(String) };

let client: RegisteredClient;
let demo: Tokens;
let other: Tokens;

beforeAll(async () => {
  client = await registerConfidential({ scope: 'openid profile email students:read students:write courses:read' });
  demo = await tokensFor(client, undefined, { scope: 'openid profile students:read courses:read' });
  other = await tokensFor(client, OTHER, { scope: 'openid profile students:read courses:read' });
});

describe('a credential used as something it is not', () => {
  it.each([
    ['a refresh token', () => demo.refresh_token],
    ['an ID token', () => demo.id_token as string],
    ['an authorization code', () => 'not-used-here'],
  ])('%s is not a bearer token at the resource server', async (_name, credential) => {
    const response = await send('/api/v1/students', { headers: bearer(credential()) });
    expect(response.status).toBe(401);
    expect(response.json()).toEqual(INVALID_TOKEN);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it.each([
    ['a refresh token', () => demo.refresh_token],
    ['an ID token', () => demo.id_token as string],
  ])('%s is not a bearer token at userinfo', async (_name, credential) => {
    const response = await send('/api/oauth/userinfo', { headers: bearer(credential()) });
    expect(response.status).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('an access token is not a refresh token', async () => {
    const response = await form('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: demo.access_token,
      client_id: client.client_id,
      client_secret: client.client_secret as string,
    });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_grant' });
    // ...and the failed attempt did not disturb it.
    expect((await send('/api/v1/students', { headers: bearer(demo.access_token) })).status).toBe(200);
  });

  it('the real access token works (the refusals above are about the kind of credential)', async () => {
    expect((await send('/api/v1/students', { headers: bearer(demo.access_token) })).status).toBe(200);
  });
});

describe('a token of another school', () => {
  it('sees only its own school, whatever the request names', async () => {
    const demoStudents = (await send('/api/v1/students', { headers: bearer(demo.access_token) })).json<{ data: { id: string }[] }>().data;
    expect(demoStudents.length).toBeGreaterThan(0);
    const demoIds = new Set(demoStudents.map((student) => student.id));

    const listed = await send('/api/v1/students?school=demo-school', { headers: bearer(other.access_token) });
    expect(listed.status).toBe(200);
    expect(listed.json<{ data: { id: string }[] }>().data.filter((student) => demoIds.has(student.id))).toEqual([]);

    const direct = await send(`/api/v1/students/${encodeURIComponent(demoStudents[0].id)}`, { headers: bearer(other.access_token) });
    expect(direct.status).toBe(404);
    expect(direct.json()).toMatchObject({ error: 'not_found' });
  });

  it('cannot write into the other school either', async () => {
    const demoStudent = (await send('/api/v1/students', { headers: bearer(demo.access_token) })).json<{ data: { id: string }[] }>().data[0];
    const writer = await tokensFor(client, OTHER, { scope: 'students:write' });
    const response = await send(`/api/v1/students/${encodeURIComponent(demoStudent.id)}`, {
      method: 'PATCH',
      headers: { ...bearer(writer.access_token), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Taken over' }),
    });
    expect(response.status).toBe(404);
  });
});

describe('a token for another audience', () => {
  it('is never issued: the authorization request for another resource goes back with invalid_target', async () => {
    const response = await send(
      `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: 'https://evil.example/api' })}`,
    );
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location') as string).searchParams.get('error')).toBe('invalid_target');
  });

  it('is never issued at the code exchange or on refresh either', async () => {
    const { verifier, challenge } = pkce();
    const code = await authorize(client, challenge);
    const exchanged = await exchange(client, code, verifier, { resource: 'https://evil.example/api' });
    expect(exchanged.status).toBe(400);
    expect(exchanged.json()).toMatchObject({ error: 'invalid_target' });
    const refreshed = await form('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: other.refresh_token,
      client_id: client.client_id,
      client_secret: client.client_secret as string,
      resource: 'https://evil.example/api',
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.json()).toMatchObject({ error: 'invalid_target' });
  });
});

describe('a code or token of another client', () => {
  it('a code cannot be exchanged by another client, and the attempt does not burn it for its owner', async () => {
    const owner = await register();
    const thief = await register();
    const { verifier, challenge } = pkce();
    const code = await authorize(owner, challenge);
    const stolen = await exchange(thief, code, verifier);
    expect(stolen.status).toBe(400);
    expect(stolen.json()).toMatchObject({ error: 'invalid_grant' });
    const rightful = await exchange(owner, code, verifier);
    expect(rightful.status).toBe(200);
  });

  it('a refresh token cannot be used by another client', async () => {
    const thief = await registerConfidential();
    const response = await form('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: demo.refresh_token,
      client_id: thief.client_id,
      client_secret: thief.client_secret as string,
    });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('another client learns nothing by introspecting a token, and cannot revoke it', async () => {
    const nosy = await registerConfidential();
    expect(await isActive(nosy, demo.access_token)).toBe(false);
    const revoked = await form('/api/oauth/revoke', { token: demo.access_token, client_id: nosy.client_id, client_secret: nosy.client_secret as string });
    expect(revoked.status).toBe(200);
    expect(await isActive(client, demo.access_token)).toBe(true);
    expect((await send('/api/v1/students', { headers: bearer(demo.access_token) })).status).toBe(200);
  });
});
