import type { IssuingRequest } from '../../security-events/token-issued-event';
import type { IssuedGrant, NewTokens } from '../token-rows';

/** What the code exchange presents: the code and what it must match. */
export interface CodeExchange {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  /** The PKCE challenge of the presented code_verifier (S256). */
  codeChallenge: string;
  /** The thumbprint of the request's DPoP key; null without a proof. */
  dpopJkt: string | null;
}

/** Who a code belongs to, and whether it can still be exchanged. */
export interface CodeOwner {
  clientId: string;
  grantId: string;
  consumed: boolean;
  /** RFC 9449 §10: the key the code is bound to (the authorization request's dpop_jkt). */
  dpopJkt: string | null;
}

/** A code this request consumed, whether or not tokens came of it. */
export interface ConsumedCode {
  expiresAt: Date;
  redirectUri: string;
  codeChallenge: string;
  grantRevokedAt: Date | null;
  /** Set when the checks passed and the tokens were stored. */
  issued: IssuedGrant | null;
}

/** The storage the authorization_code grant needs (fosite's AuthorizeCodeStorage, narrowed to this grant). */
export interface AuthorizationCodeStorage {
  /**
   * The single-use step (RFC 6749 §4.1.2): consumes the client's code, of parallel calls exactly
   * one, and stores `tokens` in its grant when the code is unexpired, the grant alive, and the
   * redirect_uri and PKCE challenge match, all at once, with the auth.token.issued event of
   * `request`. Null when nothing was consumed (unknown, another client's, used already, or bound
   * to a DPoP key the request did not prove).
   */
  consumeCode(exchange: CodeExchange, tokens: NewTokens, request: IssuingRequest): Promise<ConsumedCode | null>;
  /** The client and grant of a code, consumed or not: a replay is told from an unknown code. */
  findCodeOwner(codeHash: string): Promise<CodeOwner | null>;
}

export const AUTHORIZATION_CODE_STORAGE = Symbol('AuthorizationCodeStorage');
