import type { OAuthError } from '@platform/oauth-errors';
import type { FastifyReply } from 'fastify';
import { sendHtml, sendRedirect } from '../pages/html-response';
import { CONSENT_ACTION, LOGIN_ACTION } from '../pages/page-paths';
import { imageSourcesOf, renderConsentPage, renderErrorPage, renderLoginPage } from '../pages/pages';
import type { AuthorizeOutcome, ConsentOutcome, ConsentProblem, SignInOutcome, SignInProblem } from './authorize-outcome';
import { buildRedirectUrl } from './redirect';

/** What the pages say about a problem, and the status they are sent with. */
const SIGN_IN_PROBLEMS: Readonly<Record<SignInProblem, { status: number; message: string }>> = {
  // Also for an unknown email: the page must not reveal which emails have an account.
  'bad-credentials': { status: 401, message: 'Email or password is incorrect.' },
  'form-expired': { status: 403, message: 'Your sign-in form expired. Please enter your email and password again.' },
  'session-ended': { status: 401, message: 'Your session has ended. Sign in again to continue.' },
};

const CONSENT_PROBLEMS: Readonly<Record<ConsentProblem, { status: number; message: string }>> = {
  'form-expired': { status: 403, message: 'This form expired or was not sent from this page. Review the request and choose again.' },
  'no-decision': { status: 400, message: 'Choose Approve or Deny.' },
};

/**
 * Writes an outcome of the authorization endpoint: the one place where its decisions become
 * HTTP (as fosite's WriteAuthorizeResponse/WriteAuthorizeError). Pages and redirects carry the
 * sign-in pages' security headers (pages/html-response.ts); Set-Cookie comes first.
 */
export function writeAuthorizeResponse(reply: FastifyReply, outcome: AuthorizeOutcome): void {
  switch (outcome.kind) {
    case 'sign-in':
      setCookies(reply, outcome.setCookies);
      return writeSignInPage(reply, outcome);
    case 'consent':
      setCookies(reply, outcome.setCookies);
      return writeConsentPage(reply, outcome);
    case 'signed-in':
      setCookies(reply, outcome.setCookies);
      return sendRedirect(reply, outcome.location);
    case 'to-client':
      return sendRedirect(reply, buildRedirectUrl(outcome.redirectUri, outcome.params));
    case 'error-page':
      return writeErrorPage(reply, outcome.error);
  }
}

function setCookies(reply: FastifyReply, values: readonly string[]): void {
  // Fastify keeps repeated Set-Cookie headers apart.
  for (const value of values) reply.header('set-cookie', value);
}

function writeSignInPage(reply: FastifyReply, outcome: SignInOutcome): void {
  const problem = outcome.problem && SIGN_IN_PROBLEMS[outcome.problem];
  const html = renderLoginPage({
    clientName: outcome.clientName,
    action: LOGIN_ACTION,
    csrfToken: outcome.form.csrfToken,
    hidden: outcome.form.carried,
    email: outcome.email,
    error: problem?.message,
    invalid: outcome.problem === 'bad-credentials' ? true : undefined,
    branding: outcome.branding,
  });
  sendHtml(reply, problem?.status ?? 200, html, imageSourcesOf(outcome.branding));
}

function writeConsentPage(reply: FastifyReply, outcome: ConsentOutcome): void {
  const problem = outcome.problem && CONSENT_PROBLEMS[outcome.problem];
  const redirect = new URL(outcome.redirectUri);
  const html = renderConsentPage({
    clientName: outcome.client.name,
    redirectHost: redirect.host,
    clientHost: outcome.client.host,
    loopbackOnly: outcome.client.loopbackOnly,
    scopes: outcome.scopes,
    alreadyGranted: outcome.alreadyGranted,
    userName: outcome.user.name,
    userEmail: outcome.user.email,
    schoolName: outcome.user.schoolName,
    action: CONSENT_ACTION,
    csrfToken: outcome.form.csrfToken,
    hidden: outcome.form.carried,
    error: problem?.message,
    branding: outcome.branding,
  });
  // CSP form-action also governs the redirect that follows the form: an https redirect URI's
  // origin must be allowed besides loopback (pages/html-response.ts).
  const formTargets = redirect.protocol === 'https:' ? [redirect.origin] : [];
  sendHtml(reply, problem?.status ?? 200, html, imageSourcesOf(outcome.branding), formTargets);
}

function writeErrorPage(reply: FastifyReply, error: OAuthError): void {
  const page =
    error.status >= 500
      ? renderErrorPage({
          heading: 'Something went wrong',
          description:
            error.status === 503
              ? 'The sign-in service is temporarily unavailable.'
              : 'The sign-in service ran into an unexpected problem.',
          advice: 'Wait a moment, then go back to the application and start the sign-in again.',
        })
      : renderErrorPage({ description: error.description, code: error.error });
  // E.g. Retry-After on the 429 of a locked sign-in.
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  sendHtml(reply, error.status, page);
}
