/**
 * The sign-in pages in a real browser (Debian's Chromium, driven by playwright-core) through
 * the one origin, as a person uses them: sign in, read the consent page, approve or deny, land
 * on the application's loopback callback; the second time the same application asks for the
 * same, no page at all; a step-up lists only what is new. Also what a person cannot see in the
 * HTTP tests: the pages under their real CSP, with a keyboard and a screen reader's view
 * (axe-core), in the school's colors. Screenshots go to test-results/screenshots/ at the
 * workspace root.
 */
import { type Scope, SCOPES } from '@platform/scopes';
import type { AxeResults } from 'axe-core';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as oidc from 'openid-client';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { DEMO } from '../support/oauth-client';
import { baseUrl } from '../support/platform';
import { describeIfChromium, launchChromium } from './chromium';
import { LoopbackCallback } from './loopback-callback';

jest.setTimeout(90_000);

const WORKSPACE_ROOT = resolve(__dirname, '../../../..');
const SCREENSHOTS = join(WORKSPACE_ROOT, 'test-results/screenshots');
const AXE_SCRIPT = join(WORKSPACE_ROOT, 'node_modules/axe-core/axe.min.js');
const CLIENT_NAME = 'Lesson Planner (browser test)';
const REQUESTED_SCOPES: readonly Scope[] = ['openid', 'profile', 'email', 'courses:read', 'students:read'];
const DEMO_SCHOOL = 'demo-school';
const insecure = { execute: [oidc.allowInsecureRequests] };

interface Attempt {
  url: string;
  state: string;
  verifier: string;
}

interface PublicAppearance {
  primary_color: string;
}

describeIfChromium('signing in with a browser', () => {
  let browser: Browser;
  const callback = new LoopbackCallback();
  let client: oidc.Configuration;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await callback.start();
    browser = await launchChromium();
  });

  // A newly registered application per test: one approved in a test would not be asked in the next
  // (remembered consent).
  beforeEach(async () => {
    client = await registerClient(callback.redirectUri);
  });

  afterAll(async () => {
    await browser?.close();
    await callback.stop();
  });

  /** The application's side: an authorization URL with PKCE S256 and state, built by openid-client. */
  async function authorizationRequest(scopes: readonly string[] = REQUESTED_SCOPES): Promise<Attempt> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: callback.redirectUri,
      scope: scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    return { url: url.href, state, verifier };
  }

  /** A fresh browser profile per test; CSP violations and page errors fail the test. */
  async function withPage(run: (page: Page) => Promise<void>, options: BrowserContextOptions = {}): Promise<void> {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      const text = message.text();
      // The CSP names http://[::1]:* in form-action for the browsers that accept IPv6 sources;
      // Chromium does not, says so, and ignores that one source (see pages/html-response.ts).
      if (text.includes("invalid source: 'http://[::1]:*'")) return;
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(text)) problems.push(text);
    });
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await run(page);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }

  async function fillLogin(page: Page, email: string, password: string): Promise<void> {
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Opens the authorization URL and signs in; resolves on the consent page. */
  async function signIn(page: Page, attempt: Attempt): Promise<void> {
    await page.goto(attempt.url);
    await fillLogin(page, DEMO.email, DEMO.password);
    await consentHeading(page).waitFor();
  }

  const consentHeading = (page: Page) => page.getByRole('heading', { level: 1, name: `${CLIENT_NAME} wants to access your account` });

  async function decide(page: Page, decision: 'Approve' | 'Deny'): Promise<URL> {
    await page.getByRole('button', { name: decision, exact: true }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    const landed = new URL(page.url());
    expect(callback.received.at(-1)?.href).toBe(landed.href);
    return landed;
  }

  it('signs in, names the client, its redirect host and every scope in words, and approves: code, state and iss', async () => {
    await withPage(async (page) => {
      const attempt = await authorizationRequest();
      await page.goto(attempt.url);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Sign in');
      await expect(page.locator('main').innerText()).resolves.toContain(CLIENT_NAME);
      await expect(page.getByLabel('Email', { exact: true }).inputValue()).resolves.toBe('');
      await screenshot(page, 'login.png');

      await fillLogin(page, DEMO.email, DEMO.password);
      await consentHeading(page).waitFor();
      const note = await page.locator('main').innerText();
      expect(note).toContain(`You will be sent back to ${new URL(callback.redirectUri).host} on this computer.`);
      expect(note).toContain(`Signed in as`);
      expect(note).toContain(DEMO.email);

      // Every requested scope, in the catalogue's words, with its name; nothing else.
      const rows = await page.locator('ul.scopes > li').allInnerTexts();
      expect(rows).toHaveLength(REQUESTED_SCOPES.length);
      for (const scope of REQUESTED_SCOPES) {
        expect(rows.filter((row) => row.includes(SCOPES[scope].description) && row.includes(scope))).toHaveLength(1);
      }
      await screenshot(page, 'consent.png');

      const landed = await decide(page, 'Approve');
      expect(landed.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(landed.searchParams.get('state')).toBe(attempt.state);
      expect(landed.searchParams.get('iss')).toBe(baseUrl());
      expect(landed.searchParams.has('error')).toBe(false);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('You can close this window');

      // The code is real: the application exchanges it (openid-client checks iss and state too).
      const tokens = await oidc.authorizationCodeGrant(client, landed, { pkceCodeVerifier: attempt.verifier, expectedState: attempt.state });
      expect(tokens.access_token).toBeTruthy();
      expect(tokens.claims()).toMatchObject({ iss: baseUrl(), aud: client.clientMetadata().client_id });
    });
    console.log(`screenshots of the login and consent pages: ${join(SCREENSHOTS, 'login.png')}, ${join(SCREENSHOTS, 'consent.png')}`);
  });

  it('the same application asking again for the same is sent back at once with a code that works; a step-up lists only what is new', async () => {
    await withPage(async (page) => {
      await signIn(page, await authorizationRequest());
      await decide(page, 'Approve');

      // No page: the browser goes straight to the application's callback.
      const again = await authorizationRequest();
      const answers: number[] = [];
      page.on('response', (response) => {
        if (new URL(response.url()).pathname.startsWith('/oauth/authorize')) answers.push(response.status());
      });
      await page.goto(again.url);
      await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
      expect(answers).toEqual([303]);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('You can close this window');
      const landed = new URL(page.url());
      expect(landed.searchParams.get('state')).toBe(again.state);
      const tokens = await oidc.authorizationCodeGrant(client, landed, { pkceCodeVerifier: again.verifier, expectedState: again.state });
      expect(tokens.scope?.split(' ').sort()).toEqual([...REQUESTED_SCOPES].sort());

      // Step-up with a write scope: the new scope only, its read scope in the same row; the rest in one sentence.
      await page.goto((await authorizationRequest([...REQUESTED_SCOPES, 'coupons:write'])).url);
      await consentHeading(page).waitFor();
      await expect(page.locator('ul.scopes > li').allInnerTexts()).resolves.toEqual([
        expect.stringMatching(/^See coupons; create, edit and delete coupons\s+coupons:read coupons:write$/),
      ]);
      await expect(page.locator('#already-granted').innerText()).resolves.toMatch(/^You allowed this before, and are not asked again: /);
      await screenshot(page, 'consent-step-up.png');
    });
  });

  it('Deny sends the person back with error=access_denied, state and iss, and no code', async () => {
    await withPage(async (page) => {
      const attempt = await authorizationRequest();
      await signIn(page, attempt);
      const landed = await decide(page, 'Deny');
      expect(landed.searchParams.get('error')).toBe('access_denied');
      expect(landed.searchParams.get('state')).toBe(attempt.state);
      expect(landed.searchParams.get('iss')).toBe(baseUrl());
      expect(landed.searchParams.has('code')).toBe(false);
    });
  });

  it('a wrong password and an unknown email get the same message, tied to the form', async () => {
    await withPage(async (page) => {
      const attempt = await authorizationRequest();
      await page.goto(attempt.url);

      const failedSignIn = async (email: string) => {
        const answer = page.waitForResponse((response) => new URL(response.url()).pathname === '/oauth/authorize/login');
        await fillLogin(page, email, 'not-the-password');
        const status = (await answer).status();
        const alert = page.getByRole('alert');
        await alert.waitFor();
        return { status, message: (await alert.innerText()).trim(), alertId: await alert.getAttribute('id') };
      };

      const wrongPassword = await failedSignIn(DEMO.email);
      await screenshot(page, 'login-error.png');
      const unknownEmail = await failedSignIn('nobody-by-this-name@academy.test');

      expect(wrongPassword.message).toBe('Email or password is incorrect.');
      expect(unknownEmail).toEqual(wrongPassword);
      expect(wrongPassword.status).toBe(401);
      // Read again by a screen reader with each field, and in the tab's title.
      for (const label of ['Email', 'Password']) {
        const field = page.getByLabel(label, { exact: true });
        await expect(field.getAttribute('aria-describedby')).resolves.toBe(wrongPassword.alertId);
        await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
      }
      await expect(page.title()).resolves.toMatch(/^Error: Sign in · /);
      // The email stays filled in, the password does not.
      await expect(page.getByLabel('Email', { exact: true }).inputValue()).resolves.toBe('nobody-by-this-name@academy.test');
      await expect(page.getByLabel('Password', { exact: true }).inputValue()).resolves.toBe('');
    });
  });

  it('the login and consent pages have no serious or critical axe-core violations', async () => {
    // Injecting axe needs a script on the page, which the pages' CSP rightly forbids: this
    // context alone bypasses the CSP; every other test runs under it.
    await withPage(
      async (page) => {
        const attempt = await authorizationRequest();
        await page.goto(attempt.url);
        expect(await seriousViolations(page)).toEqual([]);

        await fillLogin(page, DEMO.email, 'not-the-password');
        await page.getByRole('alert').waitFor();
        expect(await seriousViolations(page)).toEqual([]);

        await fillLogin(page, DEMO.email, DEMO.password);
        await consentHeading(page).waitFor();
        expect(await seriousViolations(page)).toEqual([]);

        // A step-up's page: what is new, and a sentence on what was allowed before.
        await decide(page, 'Approve');
        await page.goto((await authorizationRequest([...REQUESTED_SCOPES, 'coupons:write'])).url);
        await consentHeading(page).waitFor();
        expect(await seriousViolations(page)).toEqual([]);
      },
      { bypassCSP: true },
    );
  });

  it('Tab goes email → password → Sign in, then Deny → Approve, each with a visible focus ring', async () => {
    await withPage(async (page) => {
      const attempt = await authorizationRequest();
      await page.goto(attempt.url);
      expect(await tabThrough(page, 3)).toEqual([
        { element: 'input#email', ring: true },
        { element: 'input#password', ring: true },
        { element: 'button: Sign in', ring: true },
      ]);

      // Type and press Enter, as a keyboard user would.
      await page.getByLabel('Email', { exact: true }).fill(DEMO.email);
      await page.getByLabel('Password', { exact: true }).fill(DEMO.password);
      await page.keyboard.press('Enter');
      await consentHeading(page).waitFor();
      expect(await tabThrough(page, 2)).toEqual([
        { element: 'button: Deny', ring: true },
        { element: 'button: Approve', ring: true },
      ]);
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
      expect(new URL(page.url()).searchParams.has('code')).toBe(true);
    });
  });

  it("shows the school's name and its seeded primary color on both pages", async () => {
    const appearance = await publicJson<PublicAppearance>(`/api/v1/appearance?school=${DEMO_SCHOOL}`);
    const school = await publicJson<{ name: string }>(`/api/v1/school?school=${DEMO_SCHOOL}`);
    expect(school.name).toBe('Demo Academy');
    await withPage(async (page) => {
      const attempt = await authorizationRequest();
      await page.goto(attempt.url);
      await expect(page.getByRole('banner').innerText()).resolves.toContain('Demo Academy');
      await expect(page.title()).resolves.toBe('Sign in · Demo Academy');
      await expect(computedStyle(page.getByRole('button', { name: 'Sign in' }), 'background-color')).resolves.toBe(
        cssRgb(appearance.primary_color),
      );

      await fillLogin(page, DEMO.email, DEMO.password);
      await consentHeading(page).waitFor();
      await expect(page.getByRole('banner').innerText()).resolves.toContain('Demo Academy');
      await expect(computedStyle(page.getByRole('button', { name: 'Approve' }), 'background-color')).resolves.toBe(
        cssRgb(appearance.primary_color),
      );
    });
  });
});

async function registerClient(redirectUri: string): Promise<oidc.Configuration> {
  const response = await fetch(`${baseUrl()}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: CLIENT_NAME, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
  });
  expect(response.status).toBe(201);
  const { client_id: clientId } = (await response.json()) as { client_id: string };
  return oidc.discovery(new URL(baseUrl()), clientId, undefined, oidc.None(), insecure);
}

async function publicJson<T>(path: string): Promise<T> {
  const response = await fetch(`${baseUrl()}${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true });
}

interface Violation {
  id: string;
  impact?: string | null;
  help: string;
  targets: string[];
}

/** axe-core's run of the whole page; only what a person would be blocked by (serious, critical). */
async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const results = await page.evaluate<AxeResults>('axe.run(document, { resultTypes: ["violations"] })');
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }));
}

/** Presses Tab `count` times; what got focus each time, and whether it shows a focus ring. */
async function tabThrough(page: Page, count: number): Promise<{ element: string; ring: boolean }[]> {
  const seen: { element: string; ring: boolean }[] = [];
  for (let i = 0; i < count; i++) {
    await page.keyboard.press('Tab');
    seen.push(
      await page.evaluate<{ element: string; ring: boolean }>(`(() => {
        const element = document.activeElement;
        const style = getComputedStyle(element);
        const name = element.tagName === 'BUTTON' ? 'button: ' + element.textContent.trim() : element.tagName.toLowerCase() + '#' + element.id;
        return { element: name, ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 };
      })()`),
    );
  }
  return seen;
}

/** The part of the page's window this file uses (the e2e project compiles without the DOM lib). */
interface PageWindow {
  getComputedStyle(element: unknown): { getPropertyValue(name: string): string };
}

function computedStyle(locator: Locator, property: string): Promise<string> {
  return locator.evaluate(
    (element, name) => (globalThis as unknown as PageWindow).getComputedStyle(element).getPropertyValue(name),
    property,
  );
}

/** `#4f46e5` as the browser reports computed colors: `rgb(79, 70, 229)`. */
function cssRgb(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(value >> 16) & 0xff}, ${(value >> 8) & 0xff}, ${value & 0xff})`;
}
