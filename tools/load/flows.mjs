// The traffic of the load run: what a client application, its user's browser and an API
// caller do, over plain fetch. Every request is timed and counted by `record`.
import { createHash, randomBytes } from 'node:crypto';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const DEMO = { email: 'demo@academy.test', password: 'demo-password' };
const SCOPE = 'openid profile students:read courses:read';

export class Recorder {
  constructor() {
    this.byAction = new Map();
    this.statuses = new Map();
    this.serverErrors = [];
    this.log = [];
  }

  /** One request: its action name, status and duration; 5xx and transport failures are kept apart. */
  note(action, status, ms, detail) {
    let entry = this.byAction.get(action);
    if (!entry) {
      entry = { count: 0, durations: [] };
      this.byAction.set(action, entry);
    }
    entry.count++;
    if (entry.durations.length < 50_000) entry.durations.push(ms);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500 || status === 0) this.serverErrors.push({ action, status, detail });
  }

  /** An entry of the action log (what the ledger will be checked against). */
  event(entry) {
    this.log.push({ at: Date.now(), ...entry });
  }
}

export class Client {
  constructor(baseUrl, recorder) {
    this.baseUrl = baseUrl;
    this.recorder = recorder;
  }

  async request(action, path, init = {}) {
    const started = performance.now();
    let response;
    try {
      response = await fetch(new URL(path, this.baseUrl), { redirect: 'manual', signal: AbortSignal.timeout(30_000), ...init });
    } catch (error) {
      this.recorder.note(action, 0, performance.now() - started, `${path}: ${error.message} ${error.cause ?? ''}`);
      throw error;
    }
    const text = await response.text();
    const ms = performance.now() - started;
    this.recorder.note(action, response.status, ms, response.status >= 500 ? `${path}: ${text.slice(0, 200)}` : undefined);
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
  }

  form(action, path, fields, headers = {}) {
    return this.request(action, path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

export async function registerClient(client) {
  const response = await client.request('register', '/api/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'load', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' }),
  });
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${response.text.slice(0, 200)}`);
  return response.json();
}

const decode = (value) => value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function formOf(html) {
  const form = /<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form on the page: ${html.slice(0, 200)}`);
  const fields = [];
  for (const input of form[2].matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields.push([decode(input[1]), decode(input[2])]);
  return { action: decode(form[1]), fields };
}

/** A user's browser: keeps its cookies (the session, the CSRF secret). */
export class Browser {
  constructor(client) {
    this.client = client;
    this.cookies = new Map();
  }

  async go(action, path, init = {}) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await this.client.request(action, path, { ...init, headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(index + 1));
    }
    return response;
  }

  async submit(action, page, extra) {
    const { action: target, fields } = formOf(page.text);
    const body = new URLSearchParams(fields);
    for (const [name, value] of Object.entries(extra)) body.append(name, value);
    return this.go(action, target, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
  }

  /** The authorization request up to the code: signs in if the browser has no session. */
  async code(registered, challenge) {
    const state = randomBytes(8).toString('hex');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: REDIRECT_URI,
      scope: SCOPE,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });
    let page = await this.go('authorize', `/oauth/authorize?${query}`);
    if (page.status === 200 && page.text.includes('name="password"')) {
      const afterLogin = await this.submit('login', page, { email: DEMO.email, password: DEMO.password });
      if (afterLogin.status !== 303) throw new Error(`login: ${afterLogin.status}`);
      page = await this.go('authorize', afterLogin.headers.get('location'));
    }
    // A consent this user gave the client before is remembered: the code comes at once (303).
    const callback = page.status === 303 ? page : await this.consent(page);
    const location = callback.headers.get('location');
    const code = location ? new URL(location).searchParams.get('code') : null;
    if (!code) throw new Error(`consent: ${callback.status} ${location}`);
    return code;
  }

  async consent(page) {
    if (page.status !== 200) throw new Error(`consent page: ${page.status}`);
    return this.submit('consent', page, { decision: 'approve' });
  }
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function exchange(client, registered, code, verifier, action = 'token:code') {
  return client.form(action, '/api/oauth/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    client_id: registered.client_id,
    client_secret: registered.client_secret,
  });
}

export function refresh(client, registered, refreshToken) {
  return client.form('token:refresh', '/api/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: registered.client_id,
    client_secret: registered.client_secret,
  });
}

export function revoke(client, registered, token) {
  return client.form('revoke', '/api/oauth/revoke', { token, client_id: registered.client_id, client_secret: registered.client_secret });
}

export function callApi(client, token, path) {
  return client.request('api', path, { headers: { authorization: `Bearer ${token}` } });
}

/** RFC 7662: access tokens as the resource server, refresh tokens as the client that holds them. */
export async function introspect(client, credentials, token) {
  const response = await client.form('introspect', '/api/oauth/introspect', { token, client_id: credentials.clientId, client_secret: credentials.clientSecret });
  if (response.status !== 200) throw new Error(`introspection: ${response.status} ${response.text.slice(0, 200)}`);
  return response.json().active === true;
}
