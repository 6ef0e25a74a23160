import { type OAuthError, toOAuthError } from '@platform/oauth-errors';
import type { Branding } from '../branding/branding';
import type { HiddenFields } from '../pages/pages';
import { AuthorizationRedirectError } from './errors';
import { authorizationResponseParams, errorResponseParams } from './redirect';

/** The form fields every page of the walk carries. */
export interface PageForm {
  /** The CSRF token for this form (pages/csrf.ts). */
  csrfToken: string;
  /** The pending authorization request: it comes back as form fields and is validated again. */
  carried: HiddenFields;
}

/** Why the sign-in page is shown again; the page says it in words, with its status. */
export type SignInProblem = 'bad-credentials' | 'form-expired' | 'session-ended';
/** Why the consent page is shown again. */
export type ConsentProblem = 'form-expired' | 'no-decision';

/** Show the sign-in page. */
export interface SignInOutcome {
  kind: 'sign-in';
  problem?: SignInProblem;
  /** The application asking, as the page names it. */
  clientName: string;
  /** Pre-filled after a failed attempt. */
  email?: string;
  /** The default school's: nobody is signed in yet. */
  branding: Branding;
  form: PageForm;
  /** Set-Cookie header values (the CSRF secret of a browser that had none). */
  setCookies: readonly string[];
}

/** Show the consent page: who asks, where the code would go, for whom, and what in words (what is new). */
export interface ConsentOutcome {
  kind: 'consent';
  problem?: ConsentProblem;
  client: {
    name: string;
    /** The client_id URL's host (metadata-document clients). */
    host?: string;
    /** Every redirect URI is loopback: the app runs on this computer. */
    loopbackOnly: boolean;
  };
  /** Exactly as requested: its host is shown, and an https one's origin is a form target. */
  redirectUri: string;
  /**
   * What the page asks for, canonical order: the request's scopes less those the user's
   * remembered consent already covers (all of them when nothing remembered applies).
   */
  scopes: readonly string[];
  /** The request's scopes approved before: the page mentions them, briefly. */
  alreadyGranted: readonly string[];
  user: { name: string; email: string; schoolName: string };
  /** The signed-in user's school's. */
  branding: Branding;
  form: PageForm;
  setCookies: readonly string[];
}

/** Signed in: back to the same authorization request, with the new session's cookie. */
export interface SignedInOutcome {
  kind: 'signed-in';
  /** A path under this server: the authorization endpoint with the request's query. */
  location: string;
  setCookies: readonly string[];
}

/**
 * The authorization response (RFC 6749 §4.1.2) or error response (§4.1.2.1) on the client's
 * redirect URI, whose query is kept (redirect.ts).
 */
export interface ToClientOutcome {
  kind: 'to-client';
  redirectUri: string;
  params: Readonly<Record<string, string | undefined>>;
}

/** An error the user sees on this server's page: the client cannot be trusted with a redirect. */
export interface ErrorPageOutcome {
  kind: 'error-page';
  error: OAuthError;
}

/**
 * Everything the authorization endpoint can answer. AuthorizeService decides one of the first
 * four (to-client: the code, after the consent page or on remembered consent); errors are thrown as typed errors and become one of the last two in outcomeOfError();
 * authorize-response.ts writes every one of them.
 */
export type AuthorizeOutcome = SignInOutcome | ConsentOutcome | SignedInOutcome | ToClientOutcome | ErrorPageOutcome;

/** RFC 6749 §4.1.2 with RFC 9207's `iss`. */
export function codeToClient(redirectUri: string, code: string, state: string | undefined, issuer: string): ToClientOutcome {
  return { kind: 'to-client', redirectUri, params: authorizationResponseParams(code, state, issuer) };
}

/**
 * Where an error thrown by the endpoint goes, with the OAuth error behind it (for the log).
 * Once client_id and redirect_uri are validated, errors go back to the client (RFC 6749
 * §4.1.2.1, with `iss` per RFC 9207); before that, and for anything unexpected, the user gets
 * a page: never a redirect to an unverified URI.
 */
export function outcomeOfError(exception: unknown, issuer: string): { error: OAuthError; outcome: ToClientOutcome | ErrorPageOutcome } {
  if (exception instanceof AuthorizationRedirectError) {
    const error = exception.oauthError;
    const params = errorResponseParams(error, exception.state, issuer);
    return { error, outcome: { kind: 'to-client', redirectUri: exception.redirectUri, params } };
  }
  const error = toOAuthError(exception);
  return { error, outcome: { kind: 'error-page', error } };
}
