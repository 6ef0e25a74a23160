// The OAuth steps of the swarm stage's clients, over http.mjs: registration (RFC 7591), the
// code flow with PKCE through the login and consent pages, refresh, revocation (RFC 7009).
// Every request goes through `record`, so that a caller can keep a ledger of them.
import { createHash, randomBytes } from 'node:crypto';
import { send } from './http.mjs';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
/** The two accounts SEED_DEMO_DATA creates (apps/auth-server/src/accounts/demo-seeder.ts). */
export const ACCOUNTS = [
  { email: 'demo@academy.test', password: 'demo-password' },
  { email: 'other@academy.test', password: 'other-password' },
];

/**
 * @typedef {import('./http.mjs').Answer} Answer
 * @typedef {(action: string, method: string, path: string, answer: Answer, extra?: Record<string, unknown>) => void} Recorder
 * @typedef {{ client_id: string, client_secret: string }} Registered
 * @typedef {{ access_token: string, refresh_token?: string, id_token?: string }} Tokens
 */

export class OAuthClient {
  /**
   * @param {string} origin where the requests go (the gateway, or one task's address)
   * @param {Recorder} [record]
   * @param {boolean} [keepAlive] connections kept alive (http.mjs)
   */
  constructor(origin, record = () => undefined, keepAlive = false) {
    this.origin = origin;
    this.record = record;
    this.keepAlive = keepAlive;
  }

  /**
   * @param {string} action
   * @param {string} method
   * @param {string} path
   * @param {{ headers?: Record<string, string>, body?: string | Buffer }} [options]
   * @param {Record<string, unknown>} [extra] what the ledger keeps beside the answer
   */
  async call(action, method, path, options, extra) {
    const answer = await send(this.origin, method, path, { ...options, keepAlive: this.keepAlive });
    this.record(action, method, path, answer, extra);
    return answer;
  }

  /**
   * @param {string} action
   * @param {string} path
   * @param {Record<string, string>} fields
   * @param {Record<string, string>} [headers]
   */
  form(action, path, fields, headers = {}) {
    return this.call(action, 'POST', path, { headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
  }

  /**
   * A confidential client (client_secret_post).
   * @param {Record<string, string>} [headers]
   * @returns {Promise<{ answer: Answer, registered?: Registered }>}
   */
  async register(headers = {}) {
    const answer = await this.call('register', 'POST', '/api/oauth/register', {
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ client_name: 'swarm stage', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' }),
    });
    return { answer, registered: answer.status === 201 ? JSON.parse(answer.text) : undefined };
  }

  /**
   * The code flow through the pages, as a browser that signs in as `account`.
   * @param {Registered} registered
   * @param {string} scope
   * @param {{ email: string, password: string }} account
   * @returns {Promise<{ tokens?: Tokens, answer: Answer, failure?: string }>}
   */
  async codeFlow(registered, scope, account) {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: REDIRECT_URI,
      scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: randomBytes(8).toString('hex'),
    });
    const browser = new Browser(this);
    let page = await browser.go('authorize', 'GET', `/oauth/authorize?${query}`);
    if (page.status === 200 && page.text.includes('name="password"')) {
      const afterLogin = await browser.submit('login', page, { email: account.email, password: account.password });
      if (afterLogin.status !== 303) return { answer: afterLogin, failure: `login: ${afterLogin.status}` };
      page = await browser.go('authorize', 'GET', String(afterLogin.headers.location));
    }
    // A consent the user gave this client before may be remembered: straight to the callback.
    const remembered = page.status === 303 || page.status === 302;
    if (!remembered && page.status !== 200) return { answer: page, failure: `consent page: ${page.status}` };
    const callback = remembered ? page : await browser.submit('consent', page, { decision: 'approve' });
    const location = callback.headers.location;
    const code = location ? new URL(location).searchParams.get('code') : null;
    if (!code) {
      // The flow ended without a code (an error sent back to the client): a failure in the
      // ledger even when each step was answered as it may be.
      this.record('no-code', 'GET', '/oauth/authorize', { ...callback, status: -2, error: `no code in ${location ?? 'no redirect'}` });
      return { answer: callback, failure: `consent: ${callback.status} ${location ?? ''}` };
    }
    const answer = await this.form('token:code', '/api/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: registered.client_id,
      client_secret: registered.client_secret,
    });
    if (answer.status !== 200) return { answer, failure: `code exchange: ${answer.status} ${answer.text.slice(0, 200)}` };
    return { answer, tokens: JSON.parse(answer.text) };
  }

  /**
   * @param {Registered} registered
   * @param {string} refreshToken
   */
  refresh(registered, refreshToken) {
    return this.form('token:refresh', '/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: registered.client_id,
      client_secret: registered.client_secret,
    });
  }

  /**
   * @param {Registered} registered
   * @param {string} token
   */
  revoke(registered, token) {
    return this.form('revoke', '/api/oauth/revoke', { token, client_id: registered.client_id, client_secret: registered.client_secret });
  }
}

/** A user's browser: keeps its cookies (the session, the CSRF secret). */
class Browser {
  /** @param {OAuthClient} client */
  constructor(client) {
    this.client = client;
    /** @type {Map<string, string>} */
    this.cookies = new Map();
  }

  /**
   * @param {string} action
   * @param {string} method
   * @param {string} path
   * @param {{ headers?: Record<string, string>, body?: string }} [options]
   */
  async go(action, method, path, options = {}) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const answer = await this.client.call(action, method, path, { ...options, headers: { ...options.headers, ...(cookie ? { cookie } : {}) } });
    for (const line of [answer.headers['set-cookie'] ?? []].flat()) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(index + 1));
    }
    return answer;
  }

  /**
   * Submits the page's form with its hidden fields and `extra`.
   * @param {string} action
   * @param {Answer} page
   * @param {Record<string, string>} extra
   */
  submit(action, page, extra) {
    const form = /<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page.text);
    if (!form) throw new Error(`${action}: no form on the page (${page.status}): ${page.text.slice(0, 200)}`);
    const body = new URLSearchParams();
    for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) body.append(decode(input[1] ?? ''), decode(input[2] ?? ''));
    for (const [name, value] of Object.entries(extra)) body.append(name, value);
    return this.go(action, 'POST', decode(form[1] ?? ''), { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
  }
}

/** @param {string} value */
const decode = (value) => value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * The `kid` of a JWS's protected header (no verification: the stage compares it with the JWKS).
 * @param {string} jwt
 * @returns {string | undefined}
 */
export function kidOf(jwt) {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')).kid;
  } catch {
    return undefined;
  }
}
