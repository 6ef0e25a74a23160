import { createHash, randomBytes } from 'node:crypto';
import { parse } from 'node-html-parser';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const DEMO = { email: 'demo@academy.test', password: 'demo-password' };

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

/** A POST of form fields (or JSON when `json` is given), with optional extra headers. */
export async function post(
  url: string,
  body: Record<string, string> | { json: unknown },
  headers: Record<string, string> = {},
): Promise<Answer> {
  const isJson = 'json' in body;
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': isJson ? 'application/json' : 'application/x-www-form-urlencoded', ...headers },
    body: isJson ? JSON.stringify(body.json) : new URLSearchParams(body as Record<string, string>).toString(),
  });
  return answer(response);
}

export async function registerClient(
  issuer: string,
  metadata: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ client_id: string; client_secret?: string }> {
  const response = await post(`${issuer}/api/oauth/register`, { json: { client_name: 'hardening', redirect_uris: [REDIRECT_URI], ...metadata } }, headers);
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.text}`);
  return response.json();
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizationUrl(issuer: string, clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile students:read',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    ...extra,
  });
  return `${issuer}/oauth/authorize?${params}`;
}

/**
 * A browser at the HTTP level with extra headers on every request (X-Forwarded-For, as the
 * gateway would set it): keeps cookies, follows redirects within the issuer, submits forms.
 */
export class FormAgent {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly issuer: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async open(url: string): Promise<Answer & { url: string; location?: string }> {
    return this.request(url, { method: 'GET' });
  }

  /** Submits the page's form (the one with `button` when given) with these fields. */
  async submit(page: Answer & { url: string }, fields: Record<string, string>, button?: string) {
    const root = parse(page.text);
    const form = root.querySelectorAll('form').find((candidate) => !button || candidate.querySelector(`button[value="${button}"]`));
    if (!form) throw new Error(`no form on the page (${page.status}): ${page.text.slice(0, 300)}`);
    const data = new URLSearchParams();
    for (const input of form.querySelectorAll('input')) {
      const name = input.getAttribute('name');
      if (name && !(name in fields)) data.append(name, input.getAttribute('value') ?? '');
    }
    for (const [name, value] of Object.entries(fields)) data.append(name, value);
    if (button) data.append('decision', button);
    return this.request(new URL(form.getAttribute('action') ?? page.url, page.url).toString(), {
      method: 'POST',
      body: data.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  private async request(url: string, init: RequestInit, hops = 0): Promise<Answer & { url: string; location?: string }> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...this.headers, ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair] = setCookie.split(';');
      const [name, ...value] = pair.split('=');
      if (/max-age=0/i.test(setCookie)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value.join('='));
    }
    const result = { ...(await answer(response)), url };
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== new URL(this.issuer).origin || hops > 10) return { ...result, location: next.toString() };
      return this.request(next.toString(), { method: 'GET' }, hops + 1);
    }
    return result;
  }
}

/** Signs in and approves: the authorization code of the callback. */
export async function authorizationCode(issuer: string, clientId: string, challenge: string, account = DEMO): Promise<string> {
  const agent = new FormAgent(issuer);
  const login = await agent.open(authorizationUrl(issuer, clientId, challenge));
  const consent = await agent.submit(login, { email: account.email, password: account.password });
  // A consent this user gave the client before is remembered: the code comes at once.
  const callback = consent.location ? consent : await agent.submit(consent, {}, 'approve');
  const code = callback.location ? new URL(callback.location).searchParams.get('code') : null;
  if (!code) throw new Error(`no code: ${callback.status} ${callback.text.slice(0, 300)}`);
  return code;
}
