import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { CSRF_FIELD, CSRF_PURPOSE, CsrfTokens } from '../pages/csrf';
import type { BrowserRequest } from '../pages/browser-request';
import { type RequestParams } from '../pages/request-params';
import { BrandingService } from '../branding/branding.service';
import { networkOf } from '../pages/approving-browser';
import { CONNECTED_APPS_DISCONNECT, CONNECTED_APPS_LOGIN, CONNECTED_APPS_PATH, CONNECTED_APPS_SIGN_OUT } from '../pages/page-paths';
import { imageSourcesOf, renderLoginPage } from '../pages/pages';
import { grantRevoked } from '../security-events/recorded-events';
import { SecurityEvents } from '../security-events/security-events';
import { type ActiveSession, SessionService } from '../sessions/session.service';
import { GrantRevoker } from '../token/grant-revoker';
import { renderConnectedAppsPage } from './connected-apps.page';
import { ConnectedAppsRepository } from './connected-apps.repository';

/** Binds the page's forms to the login session, as the consent form is (pages/csrf.ts). */
export const connectedAppsCsrfPurpose = (sessionId: string) => `connected-apps|${sessionId}`;

export const CONNECTED_APPS_MESSAGES = {
  disconnected: 'The application was disconnected. Its access ended now, and it will have to ask you again.',
  formExpired: 'This form expired or was not sent from this page. Please try again.',
  badCredentials: 'Email or password is incorrect.',
  loginFormExpired: 'Your sign-in form expired. Please enter your email and password again.',
  sessionEnded: 'Your session has ended. Sign in again to continue.',
} as const;

/** What the controller writes: a page or a 303, with the Set-Cookie header values to send first. */
export type PageOutcome =
  | { kind: 'page'; status: number; html: string; imageSources: string[]; setCookies: string[] }
  | { kind: 'redirect'; location: string; setCookies: string[] };

/**
 * The signed-in user's authorized applications: list, Disconnect (forgets the user's remembered
 * consent for that app, so its next authorization asks again, and ends every grant of that app
 * for this user and all its tokens, announced to the resource servers like a revocation),
 * sign-out. Signed out, the page is a sign-in form of its own. It decides from
 * the request's values (parameters, cookies, address) and returns what to write, as the
 * authorization endpoint does (authorize.service.ts).
 */
@Injectable()
export class ConnectedAppsService {
  constructor(
    private readonly repository: ConnectedAppsRepository,
    private readonly sessions: SessionService,
    private readonly accounts: AccountsService,
    private readonly csrf: CsrfTokens,
    private readonly branding: BrandingService,
    private readonly grants: GrantRevoker,
    private readonly events: SecurityEvents,
  ) {}

  async show(query: RequestParams, browser: BrowserRequest): Promise<PageOutcome> {
    const session = await this.sessions.findActiveSession(browser.cookies);
    if (!session) return this.loginPage(browser, 200);
    const notice = query.get('disconnected')?.[0] === '1' ? CONNECTED_APPS_MESSAGES.disconnected : undefined;
    return this.appsPage(session, browser, 200, { notice });
  }

  async login(params: RequestParams, browser: BrowserRequest): Promise<PageOutcome> {
    const email = single(params, 'email') ?? '';
    if (!this.csrf.verifyToken(browser.cookies, single(params, CSRF_FIELD), CSRF_PURPOSE.login)) {
      return this.loginPage(browser, 403, { email, error: CONNECTED_APPS_MESSAGES.loginFormExpired });
    }
    const account = await this.accounts.verifyPassword(email, single(params, 'password') ?? '', browser.ip);
    if (!account) return this.loginPage(browser, 401, { email, error: CONNECTED_APPS_MESSAGES.badCredentials, invalid: true });
    const { setCookie } = await this.sessions.start(browser.cookies, account.id);
    return { kind: 'redirect', location: CONNECTED_APPS_PATH, setCookies: [setCookie] };
  }

  async disconnect(params: RequestParams, browser: BrowserRequest): Promise<PageOutcome> {
    const session = await this.sessions.findActiveSession(browser.cookies);
    if (!session) return this.loginPage(browser, 401, { error: CONNECTED_APPS_MESSAGES.sessionEnded });
    if (!this.csrf.verifyToken(browser.cookies, single(params, CSRF_FIELD), connectedAppsCsrfPurpose(session.id))) {
      return this.appsPage(session, browser, 403, { error: CONNECTED_APPS_MESSAGES.formExpired });
    }
    const clientId = single(params, 'client_id');
    // Forgotten first: a code issued on the remembered consent meanwhile either committed before
    // (its grant is among those revoked next) or finds the consent gone and shows the page.
    if (clientId) await this.repository.forgetConsent(session.userId, clientId);
    // Only this user's grants are looked up: another user's app cannot be named here.
    const grantIds = clientId ? await this.repository.findOpenGrantIds(session.userId, clientId) : [];
    for (const grantId of grantIds) await this.grants.revokeGrant(grantId, 'revocation');
    if (clientId) {
      const by = { type: 'user', id: session.userId } as const;
      const grant = (grantId: string) => ({ grantId, clientId, userId: session.userId, schoolId: session.user.schoolId });
      await Promise.all(grantIds.map((grantId) => this.events.record(grantRevoked(grant(grantId), by, 'disconnected', browser.ip))));
    }
    return { kind: 'redirect', location: `${CONNECTED_APPS_PATH}?disconnected=1`, setCookies: [] };
  }

  async signOut(params: RequestParams, browser: BrowserRequest): Promise<PageOutcome> {
    const session = await this.sessions.findActiveSession(browser.cookies);
    if (!session) return { kind: 'redirect', location: CONNECTED_APPS_PATH, setCookies: [] };
    if (!this.csrf.verifyToken(browser.cookies, single(params, CSRF_FIELD), connectedAppsCsrfPurpose(session.id))) {
      return this.appsPage(session, browser, 403, { error: CONNECTED_APPS_MESSAGES.formExpired });
    }
    return { kind: 'redirect', location: CONNECTED_APPS_PATH, setCookies: [await this.sessions.end(browser.cookies)] };
  }

  private async appsPage(
    session: ActiveSession,
    browser: BrowserRequest,
    status: number,
    extra: { notice?: string; error?: string } = {},
  ): Promise<PageOutcome> {
    const csrf = this.csrf.issueToken(browser.cookies, connectedAppsCsrfPurpose(session.id));
    const [apps, branding] = await Promise.all([
      this.repository.findConnectedApps(session.userId, new Date()),
      this.branding.forSchool(session.user.schoolId),
    ]);
    const html = renderConnectedAppsPage({
      apps,
      // "This network" beside an app approved from where the page is read now.
      currentNetwork: networkOf(browser.ip),
      userName: session.user.name,
      userEmail: session.user.email,
      schoolName: session.user.schoolName,
      csrfToken: csrf.token,
      disconnectAction: CONNECTED_APPS_DISCONNECT,
      signOutAction: CONNECTED_APPS_SIGN_OUT,
      branding,
      ...extra,
    });
    return { kind: 'page', status, html, imageSources: imageSourcesOf(branding), setCookies: csrf.setCookie ? [csrf.setCookie] : [] };
  }

  private async loginPage(
    browser: BrowserRequest,
    status: number,
    extra: { email?: string; error?: string; invalid?: boolean } = {},
  ): Promise<PageOutcome> {
    const branding = await this.branding.forDefaultSchool();
    const csrf = this.csrf.issueToken(browser.cookies, CSRF_PURPOSE.login);
    const html = renderLoginPage({
      clientName: 'your connected apps',
      action: CONNECTED_APPS_LOGIN,
      csrfToken: csrf.token,
      hidden: [],
      email: extra.email?.slice(0, 320),
      error: extra.error,
      invalid: extra.invalid,
      branding,
    });
    return { kind: 'page', status, html, imageSources: imageSourcesOf(branding), setCookies: csrf.setCookie ? [csrf.setCookie] : [] };
  }
}

/** A form field sent exactly once; repeated or missing counts as absent. */
function single(params: RequestParams, name: string): string | undefined {
  const values = params.get(name);
  return values?.length === 1 ? values[0] : undefined;
}
