import { OAuthError } from '@platform/oauth-errors';

/** OpenID Connect Core §3.1.2.6: prompt=none, and the user is not signed in. */
export class LoginRequiredError extends OAuthError {
  readonly error = 'login_required';
  readonly status = 400;
  constructor(description = 'The user is not signed in and prompt=none forbids asking', internalDetail?: string) {
    super(description, internalDetail);
  }
}

/** OpenID Connect Core §3.1.2.6: prompt=none, and consent would have to be asked. */
export class ConsentRequiredError extends OAuthError {
  readonly error = 'consent_required';
  readonly status = 400;
  constructor(description = 'The user has to approve this request and prompt=none forbids asking', internalDetail?: string) {
    super(description, internalDetail);
  }
}

/**
 * An error found after client_id and redirect_uri were validated: RFC 6749 §4.1.2.1 sends it
 * back to the client's redirect URI. Anything else thrown by the authorization endpoint is
 * shown to the user as a page and never redirected.
 */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly oauthError: OAuthError,
    readonly redirectUri: string,
    /** Echoed as received (RFC 6749 §4.1.2.1: "REQUIRED if a "state" parameter was present"). */
    readonly state: string | undefined,
  ) {
    super(oauthError.message);
    this.name = 'AuthorizationRedirectError';
  }
}
