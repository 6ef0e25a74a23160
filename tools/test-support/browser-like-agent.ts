import { parse, type HTMLElement } from 'node-html-parser';
import { CookieJar } from 'tough-cookie';

export interface AgentResponse {
  status: number;
  url: string;
  headers: Headers;
  body: string;
  /** Set when the response redirected outside the server (the client's loopback callback). */
  location?: string;
}

/**
 * The person's browser at the HTTP level: keeps cookies, follows redirects within the
 * server, stops at a redirect to anywhere else (the client's callback), and submits the
 * HTML forms of the login and consent pages the way a browser would. The real browser
 * (Chromium) drives the same pages in the browser test.
 */
export class BrowserLikeAgent {
  readonly jar = new CookieJar();

  constructor(private readonly origin: string) {}

  async open(url: string): Promise<AgentResponse> {
    return this.request(url, { method: 'GET' });
  }

  /** Fills the page's form (first form with the given button, or the only form) and submits it. */
  async submit(page: AgentResponse, fields: Record<string, string>, button?: string): Promise<AgentResponse> {
    const { form, submitter } = findForm(page.body, button);
    const data = new URLSearchParams();
    for (const input of form.querySelectorAll('input')) {
      const name = input.getAttribute('name');
      const type = (input.getAttribute('type') ?? 'text').toLowerCase();
      if (!name || type === 'submit' || type === 'button') continue;
      data.append(name, fields[name] ?? input.getAttribute('value') ?? '');
    }
    for (const [name, value] of Object.entries(fields)) if (!data.has(name)) data.append(name, value);
    const submitterName = submitter?.getAttribute('name');
    if (submitterName) data.append(submitterName, submitter?.getAttribute('value') ?? '');
    const action = new URL(form.getAttribute('action') ?? page.url, page.url).toString();
    return this.request(action, {
      method: (form.getAttribute('method') ?? 'GET').toUpperCase(),
      body: data.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  private async request(url: string, init: RequestInit, hops = 0): Promise<AgentResponse> {
    if (hops > 10) throw new Error('too many redirects');
    const cookie = await this.jar.getCookieString(url);
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const setCookie of response.headers.getSetCookie()) await this.jar.setCookie(setCookie, url);
    const body = await response.text();
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== this.origin) {
        return { status: response.status, url, headers: response.headers, body, location: next.toString() };
      }
      return this.request(next.toString(), { method: 'GET' }, hops + 1);
    }
    return { status: response.status, url, headers: response.headers, body };
  }
}

function findForm(html: string, button?: string): { form: HTMLElement; submitter?: HTMLElement } {
  const root = parse(html);
  for (const form of root.querySelectorAll('form')) {
    const buttons = form.querySelectorAll('button, input[type=submit]');
    if (!button) return { form, submitter: buttons[0] };
    const submitter = buttons.find((b) => b.text.trim().toLowerCase() === button.toLowerCase() ||
      (b.getAttribute('value') ?? '').toLowerCase() === button.toLowerCase());
    if (submitter) return { form, submitter };
  }
  throw new Error(`no form${button ? ` with a "${button}" button` : ''} on the page:\n${html.slice(0, 500)}`);
}
