import type { IssuingRequest } from '../../security-events/token-issued-event';
import type { IssuedGrant, NewTokens, RefreshTokenRow } from '../token-rows';

/** What a refresh request presents. */
export interface PresentedRefreshToken {
  tokenHash: string;
  clientId: string;
  /**
   * The `scope` parameter: its names (unknown ones included), all of which the token must hold,
   * and the new access token's scope; null without one (the token's scope).
   */
  requested: { scopes: readonly string[]; scope: string } | null;
  /** What the rotated-out token keeps of the caller's address (rotation-address.ts). */
  addressTag: string;
  /** The thumbprint of the request's DPoP key; null without a proof. A bound token rotates only with its own. */
  dpopJkt: string | null;
}

/** The storage the refresh_token grant needs (fosite's RefreshTokenStorage, narrowed to this grant). */
export interface RefreshTokenStorage {
  /**
   * The single-use step (RFC 9700 §4.14.2): rotates the presented token, of parallel calls with
   * one token exactly one, and stores its successors `tokens`, when it is the client's, current,
   * unrevoked, unexpired, its grant alive, the requested scopes within its own and, for a token
   * bound to a DPoP key, the request's proof by that key (RFC 9449 §5), all at once.
   * The new access token has the requested scope, by default the token's; the auth.token.issued
   * event of `request` is stored with them. Null when nothing rotated: the token's committed state
   * (findRefreshToken) then says why.
   */
  rotateRefreshToken(presented: PresentedRefreshToken, tokens: NewTokens, request: IssuingRequest): Promise<IssuedGrant | null>;
  /** A refresh token in any state, with its grant's: the committed state after a rotation that did nothing. */
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | null>;
  /**
   * The reuse window (refresh-reuse.ts): stores `tokens` in a grant that is still alive, nothing
   * rotated; the refresh token with `scopes.refresh`, the access token with `scopes.access`, and
   * the auth.token.issued event of `request`. Null when the grant was revoked.
   */
  issueInGrant(grantId: string, scopes: { refresh: string; access: string }, tokens: NewTokens, request: IssuingRequest): Promise<IssuedGrant | null>;
}

export const REFRESH_TOKEN_STORAGE = Symbol('RefreshTokenStorage');
