/** Who is calling: nobody (no token), or the holder of a valid access token. */
export type AuthPrincipal = AnonymousPrincipal | TokenPrincipal;

export interface AnonymousPrincipal {
  readonly kind: 'anonymous';
}

export interface TokenPrincipal {
  readonly kind: 'token';
  /** The school (tenant) the token acts for; nothing of another school is reachable with it. */
  readonly schoolId: string;
  /** The user (resource owner) the token was issued to: `sub`. */
  readonly userId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  /**
   * A DPoP-bound token's key (RFC 9449 §6: `cnf.jkt`, its RFC 7638 SHA-256 thumbprint): only a
   * request with a proof signed by that key may use the token. Absent: a bearer token.
   */
  readonly jkt?: string;
}

export const ANONYMOUS: AnonymousPrincipal = Object.freeze({ kind: 'anonymous' });

export function isTokenPrincipal(principal: AuthPrincipal | undefined): principal is TokenPrincipal {
  return principal?.kind === 'token';
}
