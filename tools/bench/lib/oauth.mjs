// The OAuth side of preparing a bench: register a client, sign in and approve through the real
// HTML pages (a cookie-keeping agent, like tools/test-support/browser-like-agent.ts), and turn
// authorization codes into tokens. Nothing here is timed.
import { createHash, randomBytes } from 'node:crypto';
import { parse } from 'node-html-parser';
import { CookieJar } from 'tough-cookie';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const DEMO_ACCOUNT = { email: 'demo@academy.test', password: 'demo-password' };
/** No `openid`: no ID token is signed, like oidc-provider's client_credentials answer. */
export const BENCH_SCOPE = 'courses:read';

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function json(response, what) {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** RFC 7591 registration; returns the client information response. */
export async function registerClient(authOrigin, metadata = {}) {
  const response = await fetch(`${authOrigin}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT_URI], ...metadata }),
  });
  return json(response, 'registration');
}

export async function postForm(url, form, what = url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return json(response, what);
}

/** A browser at the HTTP level: cookies, redirects within the origin, HTML form submission. */
export class FormAgent {
  jar = new CookieJar();

  constructor(origin) {
    this.origin = origin;
  }

  open(url) {
    return this.request(url, { method: 'GET' });
  }

  submit(page, fields, button) {
    const root = parse(page.body);
    let form;
    let submitter;
    for (const candidate of root.querySelectorAll('form')) {
      const buttons = candidate.querySelectorAll('button, input[type=submit]');
      submitter = button
        ? buttons.find((b) => b.text.trim().toLowerCase() === button || (b.getAttribute('value') ?? '').toLowerCase() === button)
        : buttons[0];
      if (!button || submitter) {
        form = candidate;
        break;
      }
    }
    if (!form) throw new Error(`no form${button ? ` with a "${button}" button` : ''} on ${page.url}: ${page.body.slice(0, 300)}`);
    const data = new URLSearchParams();
    for (const input of form.querySelectorAll('input')) {
      const name = input.getAttribute('name');
      const type = (input.getAttribute('type') ?? 'text').toLowerCase();
      if (!name || type === 'submit' || type === 'button') continue;
      data.append(name, fields[name] ?? input.getAttribute('value') ?? '');
    }
    for (const [name, value] of Object.entries(fields)) if (!data.has(name)) data.append(name, value);
    const submitterName = submitter?.getAttribute('name');
    if (submitterName) data.append(submitterName, submitter.getAttribute('value') ?? '');
    return this.request(new URL(form.getAttribute('action') ?? page.url, page.url).toString(), {
      method: (form.getAttribute('method') ?? 'GET').toUpperCase(),
      body: data.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  async request(url, init, hops = 0) {
    if (hops > 10) throw new Error('too many redirects');
    const cookie = await this.jar.getCookieString(url);
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers ?? {}), ...(cookie ? { cookie } : {}) },
    });
    for (const setCookie of response.headers.getSetCookie()) await this.jar.setCookie(setCookie, url);
    const body = await response.text();
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== this.origin) return { status: response.status, url, body, location: next.toString() };
      return this.request(next.toString(), { method: 'GET' }, hops + 1);
    }
    return { status: response.status, url, body };
  }
}

/**
 * Authorization codes through the HTML flow, with one signed-in agent: the first code signs in
 * (one argon2 verification; the session and CSRF cookies are then stable) and approves the consent
 * page; every further code is the redirect of the remembered consent, `concurrency` at a time. All
 * share one PKCE pair.
 */
export async function prepareCodes({ agent, clientId, challenge, count, concurrency = 16, scope = BENCH_SCOPE }) {
  const authorizeUrl = () => {
    const url = new URL('/oauth/authorize', agent.origin);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: randomBytes(8).toString('hex'),
    }).toString();
    return url.toString();
  };
  const oneCode = async () => {
    let page = await agent.open(authorizeUrl());
    if (page.body.includes('name="password"')) page = await agent.submit(page, DEMO_ACCOUNT);
    // A consent given before for the same scopes is remembered: the answer is then the redirect to the client.
    const callback = page.location ? page : await agent.submit(page, {}, 'approve');
    const code = callback.location && new URL(callback.location).searchParams.get('code');
    if (!code) throw new Error(`no code after consent: ${callback.status} ${callback.body.slice(0, 300)}`);
    return code;
  };
  const codes = [];
  if (!agent.signedIn && count > 0) {
    codes.push(await oneCode());
    agent.signedIn = true;
  }
  codes.push(...(await mapConcurrent(Array.from({ length: count - codes.length }), concurrency, oneCode)));
  return codes;
}

export function exchangeCode(authOrigin, { clientId, code, verifier }) {
  return postForm(
    `${authOrigin}/api/oauth/token`,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier },
    'code exchange',
  );
}

/** Runs `task` over `inputs` with at most `concurrency` at once; results in input order. */
export async function mapConcurrent(inputs, concurrency, task) {
  const results = new Array(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const index = next++;
      results[index] = await task(inputs[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
  return results;
}
