/**
 * The connected-apps page in a real browser (Debian's Chromium via playwright-core), under
 * its real CSP: signing in on the page, the list after two flows, Disconnect, axe-core with
 * no serious or critical violation; remembered consent as a person meets it (the second
 * authorization skips the page, a step-up shows only what is new, Disconnect forgets, the next
 * authorization asks again), and two apps of one name told apart by the browser and network
 * they were approved from. Screenshots go to test-results/screenshots/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { AxeResults } from 'axe-core';
import * as oidc from 'openid-client';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO_USER, INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(120_000);

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(__dirname, '../../../..');
const SCREENSHOTS = join(ROOT, 'test-results/screenshots');
const AXE_SCRIPT = join(ROOT, 'node_modules/axe-core/axe.min.js');
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const CHROME_ON_MACOS = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const describeIfChromium = existsSync(CHROMIUM) ? describe : describe.skip;

describeIfChromium('connected apps in Chromium', () => {
  let server: TestAuthServer;
  let browser: Browser;
  /** The application's loopback callback (RFC 8252 §7.3: any port of the registered loopback URI). */
  let callback: Server;
  let callbackUri: string;

  beforeAll(async () => {
    server = await startTestAuthServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
    callback = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Back in the app</title>'));
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    callbackUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await server?.close();
  });

  async function authorizedApp(name: string, scope: string) {
    const config = await oidc.dynamicClientRegistration(
      new URL(server.issuer),
      { client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 's',
    });
    const login = await agent.open(url.toString());
    const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
    const callback = await agent.submit(consent, {}, 'Approve');
    return oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier, expectedState: 's' });
  }

  async function active(token: string): Promise<boolean> {
    const response = await fetch(`${server.issuer}/api/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret }),
    });
    return ((await response.json()) as { active: boolean }).active;
  }

  async function seriousViolations(page: Page) {
    await page.addScriptTag({ path: AXE_SCRIPT });
    const results = await page.evaluate<AxeResults>('axe.run(document, { resultTypes: ["violations"] })');
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(({ id, help, nodes }) => ({ id, help, targets: nodes.map((node) => node.target.join(' ')) }));
  }

  it('signs in, lists two apps, disconnects one (its token is refused at once), with no serious axe-core issue', async () => {
    const planner = await authorizedApp('Lesson Planner', 'openid profile offline_access');
    const grader = await authorizedApp('Quiz Grader', 'openid profile');

    // Under the real CSP.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.issuer}/oauth/connected-apps`);
    await page.getByLabel('Email').fill(DEMO_USER.email);
    await page.getByLabel('Password', { exact: true }).fill(DEMO_USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connected apps' }).waitFor();
    await expect(page.getByRole('heading', { level: 2 }).allTextContents()).resolves.toEqual(
      expect.arrayContaining(['Lesson Planner', 'Quiz Grader']),
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'connected-apps.png'), fullPage: true });

    await page.getByRole('region', { name: 'Lesson Planner', exact: true }).getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('status').waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain('disconnected');
    await expect(page.getByRole('heading', { level: 2 }).allTextContents()).resolves.toEqual(['Quiz Grader']);
    await page.screenshot({ path: join(SCREENSHOTS, 'connected-apps-disconnected.png'), fullPage: true });
    expect(await active(planner.access_token)).toBe(false);
    expect(await active(grader.access_token)).toBe(true);
    await context.close();

    // axe needs its script on the page, which the CSP forbids: this context alone bypasses it.
    const axeContext = await browser.newContext({ bypassCSP: true });
    const axePage = await axeContext.newPage();
    await axePage.goto(`${server.issuer}/oauth/connected-apps`);
    expect(await seriousViolations(axePage)).toEqual([]);
    await axePage.getByLabel('Email').fill(DEMO_USER.email);
    await axePage.getByLabel('Password', { exact: true }).fill(DEMO_USER.password);
    await axePage.getByRole('button', { name: 'Sign in' }).click();
    await axePage.getByRole('heading', { level: 1, name: 'Connected apps' }).waitFor();
    expect(await seriousViolations(axePage)).toEqual([]);
    await axePage.getByRole('button', { name: 'Sign out' }).click();
    await axePage.getByRole('button', { name: 'Sign in' }).waitFor();
    await axeContext.close();
  });

  async function register(name: string, scope = 'openid profile'): Promise<oidc.Configuration> {
    return oidc.dynamicClientRegistration(
      new URL(server.issuer),
      { client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', scope },
      oidc.None(),
      insecure,
    );
  }

  /** A fresh browser profile (a person's browser), with its own User-Agent when given. */
  async function profile(userAgent?: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ userAgent });
    return { context, page: await context.newPage() };
  }

  async function authorizationUrl(config: oidc.Configuration, scope: string): Promise<string> {
    const verifier = oidc.randomPKCECodeVerifier();
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: callbackUri,
        scope,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: oidc.randomState(),
      })
      .toString();
  }

  async function signIn(page: Page): Promise<void> {
    await page.getByLabel('Email').fill(DEMO_USER.email);
    await page.getByLabel('Password', { exact: true }).fill(DEMO_USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Where the page ends up after `open`: the consent page (its scope rows) or the app's callback (its code). */
  async function outcome(page: Page, open: () => Promise<unknown>): Promise<{ consent: string[] } | { code: string }> {
    await open();
    const consent = page.getByRole('heading', { level: 1, name: /wants to access your account$/ });
    await Promise.race([consent.waitFor().catch(() => undefined), page.waitForURL((url) => url.href.startsWith(callbackUri)).catch(() => undefined)]);
    if (page.url().startsWith(callbackUri)) return { code: new URL(page.url()).searchParams.get('code') as string };
    return { consent: await page.locator('ul.scopes > li code').allInnerTexts() };
  }

  async function approve(page: Page): Promise<string> {
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.waitForURL((url) => url.href.startsWith(callbackUri));
    return new URL(page.url()).searchParams.get('code') as string;
  }

  it('remembers consent: the second authorization skips the page, a step-up shows only what is new, Disconnect forgets', async () => {
    const app = await register('Lesson Planner (remembered)');
    const { context, page } = await profile();

    // First time: sign in, the consent page lists everything, Approve.
    await page.goto(await authorizationUrl(app, 'openid profile'));
    await signIn(page);
    expect(await outcome(page, async () => undefined)).toEqual({ consent: ['openid', 'profile'] });
    expect(await approve(page)).toMatch(/^[\w-]{43}$/);

    // Same client, same scope: straight back to the app with a code, no page.
    const again = await authorizationUrl(app, 'openid profile');
    const second = await outcome(page, () => page.goto(again));
    expect(second).toEqual({ code: expect.stringMatching(/^[\w-]{43}$/) });

    // Step-up: only the new scope is listed; what was allowed before is one sentence.
    expect(await outcome(page, async () => page.goto(await authorizationUrl(app, 'openid profile students:read')))).toEqual({ consent: ['students:read'] });
    await expect(page.getByRole('heading', { level: 2, name: /will also be able to:$/ }).isVisible()).resolves.toBe(true);
    await expect(page.locator('#already-granted').innerText()).resolves.toBe(
      'You allowed this before, and are not asked again: Sign you in and know who you are; See your name.',
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'consent-step-up.png'), fullPage: true });
    await approve(page);

    // Disconnect on the connected-apps page forgets it...
    await page.goto(`${server.issuer}/oauth/connected-apps`);
    const section = page.getByRole('region', { name: 'Lesson Planner (remembered)' });
    await expect(section.innerText()).resolves.toMatch(/It can come back for these without asking you until/);
    await section.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('status').waitFor();

    // ...so the next authorization asks again, for everything.
    expect(await outcome(page, async () => page.goto(await authorizationUrl(app, 'openid profile')))).toEqual({ consent: ['openid', 'profile'] });
    await context.close();
  });

  it('tells apart two apps of one name by the browser and network they were approved from, with no serious axe-core issue', async () => {
    const onLaptop = await register('Claude Code');
    const onDesktop = await register('Claude Code');
    for (const [app, userAgent] of [
      [onLaptop, CHROME_ON_MACOS],
      [onDesktop, FIREFOX_ON_WINDOWS],
    ] as const) {
      const { context, page } = await profile(userAgent);
      await page.goto(await authorizationUrl(app, 'openid profile'));
      await signIn(page);
      await approve(page);
      await context.close();
    }

    const { context, page } = await browser.newContext({ bypassCSP: true }).then(async (axeContext) => ({ context: axeContext, page: await axeContext.newPage() }));
    await page.goto(`${server.issuer}/oauth/connected-apps`);
    await signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Connected apps' }).waitFor();
    const details = async (clientId: string) =>
      page.locator('section', { has: page.locator('code', { hasText: clientId }) }).locator('p.note').allInnerTexts();
    const laptop = await details(onLaptop.clientMetadata().client_id);
    const desktop = await details(onDesktop.clientMetadata().client_id);
    expect(laptop).toContain('Approved from Chrome on macOS, network 127.0.0.0/24 (this network).');
    expect(desktop).toContain('Approved from Firefox on Windows, network 127.0.0.0/24 (this network).');
    expect(laptop.find((line) => line.startsWith('First authorized'))).toMatch(/^First authorized \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC\. Last used/);
    await page.screenshot({ path: join(SCREENSHOTS, 'connected-apps-same-name.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
