/**
 * The connected-apps page in a real browser (Debian's Chromium via playwright-core), under
 * its real CSP: signing in on the page, the list after two flows, Disconnect, axe-core with
 * no serious or critical violation. Screenshots go to test-results/screenshots/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AxeResults } from 'axe-core';
import * as oidc from 'openid-client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO_USER, INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(120_000);

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(__dirname, '../../../..');
const SCREENSHOTS = join(ROOT, 'test-results/screenshots');
const AXE_SCRIPT = join(ROOT, 'node_modules/axe-core/axe.min.js');
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

const describeIfChromium = existsSync(CHROMIUM) ? describe : describe.skip;

describeIfChromium('connected apps in Chromium', () => {
  let server: TestAuthServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestAuthServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
      await browser?.close();
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

    await page.getByRole('region', { name: 'Lesson Planner' }).getByRole('button', { name: 'Disconnect' }).click();
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
});
