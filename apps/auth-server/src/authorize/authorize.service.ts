import { Inject, Injectable } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { AccessDeniedError, type OAuthError } from '@platform/oauth-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService } from '../accounts/accounts.service';
import { BrandingService } from '../branding/branding.service';
import { ClientDirectory, type DirectoryClient, scopePolicyOf } from '../client-metadata-documents';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken, hashToken } from '../crypto/tokens';
import { imageSourcesOf, renderConsentPage, renderLoginPage } from '../pages/pages';
import { type ActiveSession, SessionService } from '../sessions/session.service';
import { type AuthorizationClient, type AuthorizationRequest, validateAuthorizationRequest } from './authorization-request';
import { AuthorizeRepository } from './authorize.repository';
import { CSRF_FIELD, CSRF_PURPOSE, CsrfTokens } from './csrf';
import { AuthorizationRedirectError, ConsentRequiredError, LoginRequiredError } from './errors';
import { authorizationResponseUrl } from './redirect';
import { type RequestParams, toSearchParams } from './request-params';

/** The browser exchange: cookies are read from the request and set on the reply. */
export interface HttpExchange {
  request: FastifyRequest;
  reply: FastifyReply;
}

export type AuthorizeOutcome =
  | { kind: 'page'; status: number; html: string; /** CSP img-src sources the page needs (the school's logo). */ imageSources: string[]; /** CSP form-action origins beyond loopback: an https redirect_uri's. */ formTargets?: string[] }
  | { kind: 'redirect'; location: string };

export const LOGIN_ACTION = `${OAUTH_PATHS.authorization}/login`;
export const CONSENT_ACTION = `${OAUTH_PATHS.authorization}/consent`;

export const MESSAGES = {
  badCredentials: 'Email or password is incorrect.',
  loginFormExpired: 'Your sign-in form expired. Please enter your email and password again.',
  consentFormExpired: 'This form expired or was not sent from this page. Review the request and choose again.',
  sessionEnded: 'Your session has ended. Sign in again to continue.',
  noDecision: 'Choose Approve or Deny.',
} as const;

/**
 * The authorization endpoint (RFC 6749 §4.1.1–4.1.2): validate the request, make sure the
 * user is signed in, ask for consent, and answer the client with a code or an error.
 * Every step re-validates the whole request: the pending request travels in the forms'
 * fields and is never trusted as it comes back.
 */
@Injectable()
export class AuthorizeService {
  constructor(
    private readonly repository: AuthorizeRepository,
    private readonly sessions: SessionService,
    private readonly accounts: AccountsService,
    private readonly csrf: CsrfTokens,
    private readonly branding: BrandingService,
    private readonly clients: ClientDirectory,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  /** GET (or POST) /oauth/authorize: the login page, the consent page, or an error. */
  async authorize(params: RequestParams, http: HttpExchange): Promise<AuthorizeOutcome> {
    const request = await this.validate(params);
    const session = await this.sessions.findActive(http.request);
    if (request.prompts.has('none')) {
      // OpenID Connect Core §3.1.2.1: with prompt=none, no page may be shown. Consent is
      // asked on every authorization, so a signed-in user still cannot be answered silently.
      throw this.backToClient(request, session ? new ConsentRequiredError() : new LoginRequiredError());
    }
    if (!session || request.prompts.has('login') || request.prompts.has('select_account') || signInTooOld(request, session)) {
      return this.loginPage(request, http, 200);
    }
    return this.consentPage(request, session, http, 200);
  }

  /** POST /oauth/authorize/login */
  async login(params: RequestParams, http: HttpExchange): Promise<AuthorizeOutcome> {
    const request = await this.validate(params);
    const email = formField(params, 'email') ?? '';
    if (!this.csrf.verify(http.request, formField(params, CSRF_FIELD), CSRF_PURPOSE.login)) {
      return this.loginPage(request, http, 403, { email, error: MESSAGES.loginFormExpired });
    }
    // request.ip: Fastify resolves X-Forwarded-For with the same TRUSTED_PROXIES as the rate limits.
    const account = await this.accounts.verifyPassword(email, formField(params, 'password') ?? '', http.request.ip);
    if (!account) {
      // One message for an unknown email and a wrong password: the page must not reveal
      // which emails have an account.
      return this.loginPage(request, http, 401, { email, error: MESSAGES.badCredentials, invalid: true });
    }
    await this.sessions.create(http.request, http.reply, account.id);
    return { kind: 'redirect', location: `${OAUTH_PATHS.authorization}?${afterLoginQuery(request)}` };
  }

  /** POST /oauth/authorize/consent */
  async consent(params: RequestParams, http: HttpExchange): Promise<AuthorizeOutcome> {
    const request = await this.validate(params);
    const session = await this.sessions.findActive(http.request);
    if (!session) return this.loginPage(request, http, 401, { error: MESSAGES.sessionEnded });
    if (!this.csrf.verify(http.request, formField(params, CSRF_FIELD), CSRF_PURPOSE.consent(session.id, request.scope))) {
      return this.consentPage(request, session, http, 403, MESSAGES.consentFormExpired);
    }
    const decision = formField(params, 'decision');
    if (decision === 'deny') throw this.backToClient(request, new AccessDeniedError('The user denied the request'));
    if (decision !== 'approve') return this.consentPage(request, session, http, 400, MESSAGES.noDecision);

    const code = generateOpaqueToken();
    const now = new Date();
    await this.repository.insertGrantWithCode(
      {
        clientId: request.client.id,
        userId: session.userId,
        schoolId: session.user.schoolId,
        scope: request.scope,
        resource: request.resource,
        nonce: request.nonce ?? null,
        authTime: session.authTime,
        codeHash: hashToken(code),
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        codeExpiresAt: new Date(now.getTime() + this.config.ttl.authorizationCode * 1000),
      },
      now,
    );
    return {
      kind: 'redirect',
      location: authorizationResponseUrl(request.redirectUri, code, request.state, this.config.issuer),
    };
  }

  private validate(params: RequestParams): Promise<AuthorizationRequest> {
    return validateAuthorizationRequest(params, {
      // Registered, integration or metadata-document client (client-metadata-documents/client-directory.ts).
      findClient: async (clientId) => authorizationClientOf(await this.clients.findClient(clientId)),
      apiResource: this.config.apiResource,
    });
  }

  private backToClient(request: AuthorizationRequest, error: OAuthError): AuthorizationRedirectError {
    return new AuthorizationRedirectError(error, request.redirectUri, request.state);
  }

  /** Nobody is signed in yet: the default school's branding. */
  private async loginPage(
    request: AuthorizationRequest,
    http: HttpExchange,
    status: number,
    extra: { email?: string; error?: string; invalid?: boolean } = {},
  ): Promise<AuthorizeOutcome> {
    const branding = await this.branding.forDefaultSchool();
    const html = renderLoginPage({
      clientName: clientName(request),
      action: LOGIN_ACTION,
      csrfToken: this.csrf.issue(http.request, http.reply, CSRF_PURPOSE.login),
      hidden: request.carried,
      email: extra.email?.slice(0, 320),
      error: extra.error,
      invalid: extra.invalid,
      branding,
    });
    return { kind: 'page', status, html, imageSources: imageSourcesOf(branding) };
  }

  /** The signed-in user's school's branding. */
  private async consentPage(
    request: AuthorizationRequest,
    session: ActiveSession,
    http: HttpExchange,
    status: number,
    error?: string,
  ): Promise<AuthorizeOutcome> {
    const branding = await this.branding.forSchool(session.user.schoolId);
    const html = renderConsentPage({
      clientName: clientName(request),
      redirectHost: new URL(request.redirectUri).host,
      clientHost: request.client.host ?? undefined,
      loopbackOnly: request.client.loopbackOnly ?? false,
      scopes: request.scopes,
      userName: session.user.name,
      userEmail: session.user.email,
      schoolName: session.user.schoolName,
      action: CONSENT_ACTION,
      csrfToken: this.csrf.issue(http.request, http.reply, CSRF_PURPOSE.consent(session.id, request.scope)),
      hidden: request.carried,
      error,
      branding,
    });
    const redirect = new URL(request.redirectUri);
    const formTargets = redirect.protocol === 'https:' ? [redirect.origin] : [];
    return { kind: 'page', status, html, imageSources: imageSourcesOf(branding), formTargets };
  }
}

function authorizationClientOf(client: DirectoryClient | null): AuthorizationClient | null {
  if (!client) return null;
  return {
    id: client.id,
    name: client.name,
    redirectUris: client.redirectUris,
    grantTypes: client.grantTypes,
    responseTypes: client.responseTypes,
    scopePolicy: scopePolicyOf(client),
    host: client.host,
    loopbackOnly: client.loopbackOnly,
  };
}

function clientName(request: AuthorizationRequest): string {
  return request.client.name?.trim() || request.client.id;
}

/** A form field sent exactly once; a repeated or missing one counts as absent. */
function formField(params: RequestParams, name: string): string | undefined {
  const values = params.get(name);
  return values?.length === 1 ? values[0] : undefined;
}

/**
 * OpenID Connect Core §3.1.2.1: with max_age, "the OP MUST attempt to actively re-authenticate
 * the End-User" when the last sign-in is older; the ID token carries auth_time either way.
 */
function signInTooOld(request: AuthorizationRequest, session: ActiveSession): boolean {
  if (request.maxAgeSeconds === undefined) return false;
  const elapsedSeconds = Math.floor((Date.now() - session.authTime.getTime()) / 1000);
  return elapsedSeconds > request.maxAgeSeconds;
}

/**
 * The authorization request to return to after a successful login. prompt=login and
 * prompt=select_account have just been honoured; keeping them would show the login page again.
 */
function afterLoginQuery(request: AuthorizationRequest): string {
  const entries: [string, string][] = [];
  for (const [name, value] of request.carried) {
    if (name !== 'prompt') {
      entries.push([name, value]);
      continue;
    }
    const remaining = value.split(' ').filter((p) => p !== '' && p !== 'login' && p !== 'select_account');
    if (remaining.length > 0) entries.push([name, remaining.join(' ')]);
  }
  return toSearchParams(entries).toString();
}
