import { createHash, randomBytes } from 'node:crypto';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO } from '../support/oauth-client';
import { baseUrl } from '../support/platform';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export async function send(path: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(`${baseUrl()}${path}`, { redirect: 'manual', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

export function form(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return send(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
}

export async function register(metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const response = await send('/api/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'hardening e2e', redirect_uris: [REDIRECT_URI], ...metadata }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.text}`);
  return response.json<RegisteredClient>();
}

/** A confidential client (client_secret_post): it may introspect its own tokens (RFC 7662). */
export const registerConfidential = (metadata: Record<string, unknown> = {}) =>
  register({ token_endpoint_auth_method: 'client_secret_post', ...metadata });

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizationPath(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  return `/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile students:read courses:read',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    ...extra,
  })}`;
}

/** Signs in as `account`, approves, and returns the code of the callback. */
export async function authorize(client: RegisteredClient, challenge: string, account = DEMO, extra: Record<string, string> = {}): Promise<string> {
  const agent = new BrowserLikeAgent(baseUrl());
  const login = await agent.open(`${baseUrl()}${authorizationPath(client.client_id, challenge, extra)}`);
  const consent = await agent.submit(login, { email: account.email, password: account.password });
  // A consent this user gave the client before is remembered: the code comes at once.
  const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
  const code = callback.location ? new URL(callback.location).searchParams.get('code') : null;
  if (!code) throw new Error(`no code in the callback: ${callback.status} ${callback.body.slice(0, 200)}`);
  return code;
}

export function exchange(client: RegisteredClient, code: string, verifier: string, extra: Record<string, string> = {}): Promise<Reply> {
  return form('/api/oauth/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    client_id: client.client_id,
    ...(client.client_secret ? { client_secret: client.client_secret } : {}),
    ...extra,
  });
}

export function refresh(client: RegisteredClient, refreshToken: string): Promise<Reply> {
  return form('/api/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.client_id,
    ...(client.client_secret ? { client_secret: client.client_secret } : {}),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
  scope: string;
}

/** The whole code flow: tokens for `client`. */
export async function tokensFor(client: RegisteredClient, account = DEMO, extra: Record<string, string> = {}): Promise<Tokens> {
  const { verifier, challenge } = pkce();
  const code = await authorize(client, challenge, account, extra);
  const response = await exchange(client, code, verifier);
  if (response.status !== 200) throw new Error(`code exchange failed: ${response.status} ${response.text}`);
  return response.json<Tokens>();
}

/** RFC 7662 as the confidential client itself: whether one of its tokens is active. */
export async function isActive(client: RegisteredClient, token: string): Promise<boolean> {
  const response = await form('/api/oauth/introspect', {
    token,
    client_id: client.client_id,
    client_secret: client.client_secret as string,
  });
  if (response.status !== 200) throw new Error(`introspection failed: ${response.status} ${response.text}`);
  return response.json<{ active: boolean }>().active;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
