import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { CSRF_FIELD, CSRF_PURPOSE, CsrfTokens } from '../authorize/csrf';
import type { HttpExchange } from '../pages/http-exchange';
import { type RequestParams } from '../authorize/request-params';
import { BrandingService } from '../branding/branding.service';
import { imageSourcesOf, renderLoginPage } from '../pages/pages';
import { type ActiveSession, SessionService } from '../sessions/session.service';
import { GrantRevoker } from '../token/grant-revoker';
import { renderConnectedAppsPage } from './connected-apps.page';
import { ConnectedAppsRepository } from './connected-apps.repository';

export const CONNECTED_APPS_PATH = '/oauth/connected-apps';
export const CONNECTED_APPS_LOGIN = `${CONNECTED_APPS_PATH}/login`;
export const CONNECTED_APPS_DISCONNECT = `${CONNECTED_APPS_PATH}/disconnect`;
export const CONNECTED_APPS_SIGN_OUT = `${CONNECTED_APPS_PATH}/sign-out`;

/** Binds the page's forms to the login session, as the consent form is (authorize/csrf.ts). */
export const connectedAppsCsrfPurpose = (sessionId: string) => `connected-apps|${sessionId}`;

export const CONNECTED_APPS_MESSAGES = {
  disconnected: 'The application was disconnected. Its access ended now.',
  formExpired: 'This form expired or was not sent from this page. Please try again.',
  badCredentials: 'Email or password is incorrect.',
  loginFormExpired: 'Your sign-in form expired. Please enter your email and password again.',
  sessionEnded: 'Your session has ended. Sign in again to continue.',
} as const;

export type PageOutcome =
  | { kind: 'page'; status: number; html: string; imageSources: string[] }
  | { kind: 'redirect'; location: string };

/**
 * The signed-in user's authorized applications: list, Disconnect (ends every grant of that
 * app for this user and all its tokens, announced to the resource servers like a
 * revocation), sign-out. Signed out, the page is a sign-in form of its own.
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
  ) {}

  async show(query: RequestParams, http: HttpExchange): Promise<PageOutcome> {
    const session = await this.sessions.findActive(http.request);
    if (!session) return this.loginPage(http, 200);
    const notice = query.get('disconnected')?.[0] === '1' ? CONNECTED_APPS_MESSAGES.disconnected : undefined;
    return this.appsPage(session, http, 200, { notice });
  }

  async login(params: RequestParams, http: HttpExchange): Promise<PageOutcome> {
    const email = single(params, 'email') ?? '';
    if (!this.csrf.verify(http.request, single(params, CSRF_FIELD), CSRF_PURPOSE.login)) {
      return this.loginPage(http, 403, { email, error: CONNECTED_APPS_MESSAGES.loginFormExpired });
    }
    const account = await this.accounts.verifyPassword(email, single(params, 'password') ?? '', http.request.ip);
    if (!account) return this.loginPage(http, 401, { email, error: CONNECTED_APPS_MESSAGES.badCredentials, invalid: true });
    await this.sessions.create(http.request, http.reply, account.id);
    return { kind: 'redirect', location: CONNECTED_APPS_PATH };
  }

  async disconnect(params: RequestParams, http: HttpExchange): Promise<PageOutcome> {
    const session = await this.sessions.findActive(http.request);
    if (!session) return this.loginPage(http, 401, { error: CONNECTED_APPS_MESSAGES.sessionEnded });
    if (!this.csrf.verify(http.request, single(params, CSRF_FIELD), connectedAppsCsrfPurpose(session.id))) {
      return this.appsPage(session, http, 403, { error: CONNECTED_APPS_MESSAGES.formExpired });
    }
    const clientId = single(params, 'client_id');
    // Only this user's grants are looked up: another user's app cannot be named here.
    const grantIds = clientId ? await this.repository.findOpenGrantIds(session.userId, clientId) : [];
    for (const grantId of grantIds) await this.grants.revokeGrant(grantId, 'revocation');
    return { kind: 'redirect', location: `${CONNECTED_APPS_PATH}?disconnected=1` };
  }

  async signOut(params: RequestParams, http: HttpExchange): Promise<PageOutcome> {
    const session = await this.sessions.findActive(http.request);
    if (!session) return { kind: 'redirect', location: CONNECTED_APPS_PATH };
    if (!this.csrf.verify(http.request, single(params, CSRF_FIELD), connectedAppsCsrfPurpose(session.id))) {
      return this.appsPage(session, http, 403, { error: CONNECTED_APPS_MESSAGES.formExpired });
    }
    await this.sessions.destroy(http.request, http.reply);
    return { kind: 'redirect', location: CONNECTED_APPS_PATH };
  }

  private async appsPage(
    session: ActiveSession,
    http: HttpExchange,
    status: number,
    extra: { notice?: string; error?: string } = {},
  ): Promise<PageOutcome> {
    const [apps, branding] = await Promise.all([
      this.repository.findConnectedApps(session.userId, new Date()),
      this.branding.forSchool(session.user.schoolId),
    ]);
    const html = renderConnectedAppsPage({
      apps,
      userName: session.user.name,
      userEmail: session.user.email,
      schoolName: session.user.schoolName,
      csrfToken: this.csrf.issue(http.request, http.reply, connectedAppsCsrfPurpose(session.id)),
      disconnectAction: CONNECTED_APPS_DISCONNECT,
      signOutAction: CONNECTED_APPS_SIGN_OUT,
      branding,
      ...extra,
    });
    return { kind: 'page', status, html, imageSources: imageSourcesOf(branding) };
  }

  private async loginPage(
    http: HttpExchange,
    status: number,
    extra: { email?: string; error?: string; invalid?: boolean } = {},
  ): Promise<PageOutcome> {
    const branding = await this.branding.forDefaultSchool();
    const html = renderLoginPage({
      clientName: 'your connected apps',
      action: CONNECTED_APPS_LOGIN,
      csrfToken: this.csrf.issue(http.request, http.reply, CSRF_PURPOSE.login),
      hidden: [],
      email: extra.email?.slice(0, 320),
      error: extra.error,
      invalid: extra.invalid,
      branding,
    });
    return { kind: 'page', status, html, imageSources: imageSourcesOf(branding) };
  }
}

/** A form field sent exactly once; repeated or missing counts as absent. */
function single(params: RequestParams, name: string): string | undefined {
  const values = params.get(name);
  return values?.length === 1 ? values[0] : undefined;
}
