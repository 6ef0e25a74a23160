import { InvalidGrantError } from '@platform/oauth-errors';

/**
 * invalid_grant for a code or refresh token that does not match anything this server issued to
 * the client (unknown, another client's), or a code whose PKCE verifier or redirect_uri does
 * not match it: what guessing looks like. The body is the same as any invalid_grant; the class
 * only tells TokenEndpointLimits to count it against the caller's address. A code or token that
 * is known but no longer works (expired, revoked, rotated out, replayed) is the ordinary
 * InvalidGrantError: legitimate clients present those every day.
 */
export class UnmatchedGrantError extends InvalidGrantError {}
