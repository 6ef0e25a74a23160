/**
 * What to do with a presented refresh token, from its stored state (RFC 6749 §6, refresh token
 * rotation of RFC 9700 §4.14.2).
 *
 * - `rotate`: live and current; it rotates and its successor is issued.
 * - `grace`: rotated out at most REFRESH_REUSE_GRACE_SECONDS ago. Several processes of one client
 *   (agent CLIs run many) refresh with the same token at once; all but the first would present a
 *   token just rotated out. They get a fresh token pair of the same grant (a sibling of the
 *   successor; the successor stays valid) and the grant lives. Nothing is rotated: raw tokens are
 *   never stored, so the successor itself cannot be handed out again.
 * - `reuse`: rotated out longer ago. §4.14.2: the server "cannot determine which party submitted
 *   the refresh token" and revokes the grant with every token it produced.
 * - `invalid`: revoked, its grant revoked, or expired.
 *
 * The trade-off: within the window a stolen, already rotated refresh token is answered instead of
 * raising the alarm. The window is short, the thief still needs the client's credentials for a
 * confidential client, and any later reuse (by the thief or by the client) still revokes the
 * whole grant, the thief's tokens included.
 */
export type RefreshDecision = 'rotate' | 'grace' | 'reuse' | 'invalid';

export interface PresentedRefreshToken {
  rotatedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date;
  grant: { revokedAt: Date | null };
}

export function decideRefresh(token: PresentedRefreshToken, now: Date, graceSeconds: number): RefreshDecision {
  if (token.revokedAt || token.grant.revokedAt || token.expiresAt <= now) return 'invalid';
  if (token.rotatedAt === null) return 'rotate';
  const sinceRotation = now.getTime() - token.rotatedAt.getTime();
  return graceSeconds > 0 && sinceRotation <= graceSeconds * 1000 ? 'grace' : 'reuse';
}
