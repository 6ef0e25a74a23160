import type { AuthPrincipal } from './principal';

/** What an admission sees of the request. */
export interface AdmittedRequest {
  readonly method: string;
  /** The client address (Fastify's request.ip: X-Forwarded-For believed from trusted proxies only). */
  readonly ip: string;
}

/**
 * Called by the guard once it knows who the caller is (a valid token's principal, or the
 * anonymous caller of an @AllowAnonymous route), before the route runs: the resource server's
 * request rate limits, which are keyed by the principal. Throw an OAuthError (429) to refuse.
 * Provided under CALLER_ADMISSION by a global module of the application; without one, every
 * caller the guard accepts is admitted.
 */
export interface CallerAdmission {
  admit(request: AdmittedRequest, principal: AuthPrincipal): void | Promise<void>;
}

export const CALLER_ADMISSION = Symbol('CALLER_ADMISSION');
