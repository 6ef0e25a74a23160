/** The token tables' rows as the token endpoint, introspection and revocation read and write them. */

/** New tokens to store: ids and hashes made by TokenIssuer, times of the issuing request. */
export interface NewTokens {
  now: Date;
  /**
   * null: no refresh token (a client not registered for the refresh_token grant). dpopJkt: the DPoP
   * key the token is bound to (RFC 9449 §5, token-binding.ts), null for none.
   */
  refresh: { id: string; tokenHash: string; expiresAt: Date; dpopJkt: string | null } | null;
  access: { id: string; tokenHash: string; expiresAt: Date; dpopJkt: string | null };
}

/** The grant new tokens were stored in, and the new access token's scope. */
export interface IssuedGrant {
  grantId: string;
  clientId: string;
  userId: string;
  schoolId: string;
  resource: string;
  nonce: string | null;
  authTime: Date;
  accessScope: string;
}

/** An access token that is live: not revoked, its grant not revoked, not expired. */
export interface ActiveAccessTokenRow {
  id: string;
  tokenHash: string;
  grantId: string;
  clientId: string;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
  /** RFC 9449 §6: the thumbprint of the DPoP key the token is bound to (cnf.jkt); null for a Bearer token. */
  dpopJkt: string | null;
  grant: { userId: string; schoolId: string; resource: string };
}

/** A refresh token in any state, with its grant's. */
export interface RefreshTokenRow {
  id: string;
  tokenHash: string;
  grantId: string;
  clientId: string;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
  rotatedAt: Date | null;
  /** What is kept of the address that rotated it out (rotation-address.ts); null while current, or rotated before it was kept. */
  rotationAddressTag?: string | null;
  revokedAt: Date | null;
  /** The DPoP key the token is bound to (a public client's, RFC 9449 §5); null: not bound. */
  dpopJkt: string | null;
  grant: { revokedAt: Date | null; userId: string; schoolId: string; resource: string };
}

/** A live access token with its grant's user, as userinfo answers it (OIDC Core §5.3). */
export interface AccessTokenWithUser {
  scope: string;
  dpopJkt: string | null;
  grant: { user: { id: string; name: string; email: string; emailVerified: boolean; schoolId: string; role: string } };
}
