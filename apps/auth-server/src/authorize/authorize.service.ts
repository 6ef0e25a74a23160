import { Inject, Injectable } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { AccessDeniedError, type OAuthError } from '@platform/oauth-errors';
import { AccountsService } from '../accounts/accounts.service';
import { BrandingService } from '../branding/branding.service';
import { ClientDirectory, type DirectoryClient, scopePolicyOf } from '../client-metadata-documents/client-directory';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken, hashToken } from '../crypto/tokens';
import { approvingBrowserOf } from '../pages/approving-browser';
import type { BrowserRequest } from '../pages/browser-request';
import { CONSENT_TOKEN_TTL_SECONDS, CSRF_FIELD, CSRF_PURPOSE, CsrfTokens } from '../pages/csrf';
import { type RequestParams, toSearchParams } from '../pages/request-params';
import { type ConsentAnswer, consentDenied, consentGranted } from '../security-events/recorded-events';
import { securityEventOf } from '../security-events/security-event';
import { SecurityEvents } from '../security-events/security-events';
import { type ActiveSession, SessionService } from '../sessions/session.service';
import { type AuthorizationClient, type AuthorizationRequest, validateAuthorizationRequest } from './authorization-request';
import {
  codeToClient,
  type ConsentOutcome,
  type ConsentProblem,
  type SignedInOutcome,
  type SignInOutcome,
  type SignInProblem,
  type ToClientOutcome,
} from './authorize-outcome';
import { type ApprovedAuthorization, AuthorizeRepository, type GrantedEvent } from './authorize.repository';
import { AuthorizationRedirectError, ConsentRequiredError, LoginRequiredError } from './errors';
import { type ConsentDecision, decideConsent, redirectUrisDigest } from './remembered-consent';

/** 64 + 1 + 255 (RFC 5321 §4.5.3.1.1–2): no email address is longer; a longer value is not echoed whole. */
const MAX_EMAIL_LENGTH = 320;

/** An authorization request validated, with the client as the directory found it. */
interface ValidatedRequest {
  request: AuthorizationRequest;
  client: DirectoryClient;
}

/**
 * The authorization endpoint (RFC 6749 §4.1.1–4.1.2): validate the request, make sure the
 * user is signed in, ask for consent unless the user's remembered consent answers for it
 * (remembered-consent.ts), and answer the client with a code or an error.
 * Every step re-validates the whole request: the pending request travels in the forms'
 * fields and is never trusted as it comes back.
 *
 * It decides and returns an AuthorizeOutcome from plain values, and throws typed errors
 * (AuthorizationRedirectError once the redirect URI is known, OAuthError before); it never
 * sees the HTTP exchange and renders nothing: authorize-response.ts writes the outcome.
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
    private readonly events: SecurityEvents,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  /**
   * GET (or POST) /oauth/authorize: the sign-in page, the consent page, the code at once on
   * remembered consent, or an error.
   */
  async authorize(params: RequestParams, browser: BrowserRequest): Promise<SignInOutcome | ConsentOutcome | ToClientOutcome> {
    const { request, client } = await this.validate(params);
    const session = await this.sessions.findActiveSession(browser.cookies);
    if (request.prompts.has('none')) {
      // OpenID Connect Core §3.1.2.1: with prompt=none, no page may be shown: login_required
      // without a sign-in recent enough for max_age, consent_required unless everything asked
      // was approved before and may be granted without the page.
      if (!session || signInTooOld(request, session)) throw this.backToClient(request, new LoginRequiredError());
      const decision = await this.consentDecision(request, client, session);
      if (decision.kind === 'ask') throw this.backToClient(request, new ConsentRequiredError());
      return this.issueOnRememberedConsent(request, session, browser, decision.consentId);
    }
    if (!session || request.prompts.has('login') || request.prompts.has('select_account') || signInTooOld(request, session)) {
      return this.signIn(request, browser);
    }
    const decision = await this.consentDecision(request, client, session);
    if (decision.kind === 'skip') return this.issueOnRememberedConsent(request, session, browser, decision.consentId);
    return this.askConsent(request, session, browser, decision);
  }

  /** POST /oauth/authorize/login */
  async login(params: RequestParams, browser: BrowserRequest): Promise<SignInOutcome | SignedInOutcome> {
    const { request } = await this.validate(params);
    const email = formField(params, 'email') ?? '';
    if (!this.csrf.verifyToken(browser.cookies, formField(params, CSRF_FIELD), CSRF_PURPOSE.login)) {
      return this.signIn(request, browser, { email, problem: 'form-expired' });
    }
    const account = await this.accounts.verifyPassword(email, formField(params, 'password') ?? '', browser.ip, request.client.id);
    // An unknown email and a wrong password are one problem: the page must not reveal which
    // emails have an account.
    if (!account) return this.signIn(request, browser, { email, problem: 'bad-credentials' });
    const { setCookie } = await this.sessions.start(browser.cookies, account.id);
    return { kind: 'signed-in', location: `${OAUTH_PATHS.authorization}?${afterLoginQuery(request)}`, setCookies: [setCookie] };
  }

  /** POST /oauth/authorize/consent */
  async consent(params: RequestParams, browser: BrowserRequest): Promise<SignInOutcome | ConsentOutcome | ToClientOutcome> {
    const { request, client } = await this.validate(params);
    const session = await this.sessions.findActiveSession(browser.cookies);
    if (!session) return this.signIn(request, browser, { problem: 'session-ended' });
    // The page again: what is new since the remembered consent, or all of it once that answers
    // for everything (approved in another tab meanwhile): this form is still to be answered.
    const askAgain = async (problem: ConsentProblem) => {
      const decision = await this.consentDecision(request, client, session);
      return this.askConsent(request, session, browser, decision.kind === 'ask' ? decision : askingEverything(request), problem);
    };
    // The token names the session and the whole request the page showed, for a limited time.
    const token = this.csrf.verifyToken(browser.cookies, formField(params, CSRF_FIELD), CSRF_PURPOSE.consent(session.id, request), {
      maxAgeSeconds: CONSENT_TOKEN_TTL_SECONDS,
    });
    if (!token) return askAgain('form-expired');
    const decision = formField(params, 'decision');
    if (decision !== 'approve' && decision !== 'deny') return askAgain('no-decision');

    // The form answers once, on whichever instance: a resubmission, a second tab or a replayed
    // POST finds its token consumed and gets the page again, never a second code.
    const consentToken = {
      idHash: hashToken(token.id),
      expiresAt: new Date(token.issuedAt.getTime() + CONSENT_TOKEN_TTL_SECONDS * 1000),
    };
    if (decision === 'deny') {
      // A denial forgets nothing: what was approved before stays remembered.
      if (!(await this.repository.consumeConsentToken(consentToken))) return askAgain('form-expired');
      await this.events.record(consentDenied(consentAnswer(request, session, browser)));
      throw this.backToClient(request, new AccessDeniedError('The user denied the request'));
    }

    const code = generateOpaqueToken();
    const now = new Date();
    // What the user approved on this page is remembered for the client, with where the code
    // may go (its redirect URIs now) and what the approving browser was.
    const stored = await this.repository.insertGrantWithCode(
      this.approvedAuthorization(request, session, code, now),
      consentToken,
      now,
      {
        scopes: request.scopes,
        redirectUrisDigest: redirectUrisDigest(client.redirectUris),
        expiresAt: this.rememberedUntil(now),
        ...approvingBrowserOf(browser),
      },
      grantedEvent(request, session, browser, 'form'),
    );
    if (!stored) return askAgain('form-expired');
    return codeToClient(request.redirectUri, code, request.state, this.config.issuer);
  }

  private async validate(params: RequestParams): Promise<ValidatedRequest> {
    let found: DirectoryClient | null = null;
    const request = await validateAuthorizationRequest(params, {
      // Registered, integration or metadata-document client (client-metadata-documents/client-directory.ts).
      findClient: async (clientId) => authorizationClientOf((found = await this.clients.findClient(clientId))),
      apiResource: this.config.apiResource,
    });
    // Validation found the client, or it threw.
    return { request, client: found as unknown as DirectoryClient };
  }

  private async consentDecision(request: AuthorizationRequest, client: DirectoryClient, session: ActiveSession): Promise<ConsentDecision> {
    const stored = await this.repository.findConsent(session.userId, client.id);
    return decideConsent(request, client, stored, new Date());
  }

  /**
   * Everything asked was approved before, and the request is validated like any other: the code
   * goes out at once, bound to this very request (its redirect URI, PKCE challenge, scope,
   * resource, nonce), and the grant records that no page was shown. When the consent is gone in
   * between (forgotten on another tab or instance), the page is shown instead.
   */
  private async issueOnRememberedConsent(
    request: AuthorizationRequest,
    session: ActiveSession,
    browser: BrowserRequest,
    consentId: string,
  ): Promise<ConsentOutcome | ToClientOutcome> {
    const code = generateOpaqueToken();
    const now = new Date();
    const approved = this.approvedAuthorization(request, session, code, now);
    const stored = await this.repository.insertGrantOnRememberedConsent(
      approved,
      { consentId, expiresAt: this.rememberedUntil(now) },
      now,
      grantedEvent(request, session, browser, 'remembered'),
    );
    if (!stored) {
      if (request.prompts.has('none')) throw this.backToClient(request, new ConsentRequiredError());
      return this.askConsent(request, session, browser, askingEverything(request));
    }
    return codeToClient(request.redirectUri, code, request.state, this.config.issuer);
  }

  private approvedAuthorization(request: AuthorizationRequest, session: ActiveSession, code: string, now: Date): ApprovedAuthorization {
    return {
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
      ...(request.dpopJkt === undefined ? {} : { dpopJkt: request.dpopJkt }),
      codeExpiresAt: new Date(now.getTime() + this.config.ttl.authorizationCode * 1000),
    };
  }

  /**
   * A remembered consent lapses after a refresh token lifetime without an approval or a use: as
   * long as the platform lets an app act without the user anyway. An app in use keeps both; one
   * away longer asks again, and by then it has no token left either.
   */
  private rememberedUntil(now: Date): Date {
    return new Date(now.getTime() + this.config.ttl.refreshToken * 1000);
  }

  private backToClient(request: AuthorizationRequest, error: OAuthError): AuthorizationRedirectError {
    return new AuthorizationRedirectError(error, request.redirectUri, request.state);
  }

  private async signIn(
    request: AuthorizationRequest,
    browser: BrowserRequest,
    { email, problem }: { email?: string; problem?: SignInProblem } = {},
  ): Promise<SignInOutcome> {
    // Nobody is signed in yet: the default school's branding.
    const branding = await this.branding.forDefaultSchool();
    const { token, setCookie } = this.csrf.issueToken(browser.cookies, CSRF_PURPOSE.login);
    return {
      kind: 'sign-in',
      problem,
      clientName: clientName(request),
      email: email?.slice(0, MAX_EMAIL_LENGTH),
      branding,
      form: { csrfToken: token, carried: request.carried },
      setCookies: setCookie ? [setCookie] : [],
    };
  }

  private async askConsent(
    request: AuthorizationRequest,
    session: ActiveSession,
    browser: BrowserRequest,
    decision: Extract<ConsentDecision, { kind: 'ask' }>,
    problem?: ConsentProblem,
  ): Promise<ConsentOutcome> {
    // The signed-in user's school's branding.
    const branding = await this.branding.forSchool(session.user.schoolId);
    // The token names the session and the whole request shown: the approval grants exactly what the user read.
    const { token, setCookie } = this.csrf.issueToken(browser.cookies, CSRF_PURPOSE.consent(session.id, request));
    return {
      kind: 'consent',
      problem,
      client: {
        name: clientName(request),
        host: request.client.host ?? undefined,
        loopbackOnly: request.client.loopbackOnly ?? false,
      },
      redirectUri: request.redirectUri,
      scopes: decision.asked,
      alreadyGranted: decision.alreadyGranted,
      user: { name: session.user.name, email: session.user.email, schoolName: session.user.schoolName },
      branding,
      form: { csrfToken: token, carried: request.carried },
      setCookies: setCookie ? [setCookie] : [],
    };
  }
}

/** The user's answer to the request, as its security event names it. */
function consentAnswer(request: AuthorizationRequest, session: ActiveSession, browser: BrowserRequest): ConsentAnswer {
  return {
    user: { id: session.userId, schoolId: session.user.schoolId },
    clientId: request.client.id,
    scope: request.scope,
    resource: request.resource,
    address: browser.ip,
  };
}

/** The approval's security event, written in the transaction that stores its grant. */
function grantedEvent(request: AuthorizationRequest, session: ActiveSession, browser: BrowserRequest, approval: 'form' | 'remembered'): GrantedEvent {
  const answer = consentAnswer(request, session, browser);
  return (grantId) => securityEventOf(consentGranted(answer, grantId, approval));
}

/** The consent page listing every scope asked, none as already approved. */
function askingEverything(request: AuthorizationRequest): Extract<ConsentDecision, { kind: 'ask' }> {
  return { kind: 'ask', asked: request.scopes, alreadyGranted: [] };
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

/** The application as the pages name it. */
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
