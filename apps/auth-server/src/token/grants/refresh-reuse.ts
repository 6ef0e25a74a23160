/**
 * What to do with a presented refresh token, from its stored state (RFC 6749 §6, refresh token
 * rotation of RFC 9700 §4.14.2).
 *
 * - `rotate`: live and current; it rotates and its successor is issued.
 * - `grace`: rotated out at most REFRESH_REUSE_GRACE_SECONDS ago, from any address. Several
 *   processes of one client refresh with the same token at once; all but the first present a
 *   token just rotated out. They get a fresh pair of the same grant (a sibling of the successor,
 *   which stays valid) and the grant lives. Nothing is rotated: raw tokens are never stored, so
 *   the successor itself cannot be handed out again.
 * - `stale`: rotated out longer ago, presented from the address bucket whose request rotated it
 *   out (REFRESH_STALE_SESSIONS_KEEP_GRANT, on by default). An agent CLI keeps one refresh token
 *   for all its sessions of a server, and each session refreshes on its own, minutes to hours
 *   after another one rotated the token: that session holds a token its own machine replaced.
 *   It gets invalid_grant and nothing else, and the grant lives: the other sessions keep
 *   working. Logged as a warning and counted (oauth_refresh_stale_sessions_total).
 * - `reuse`: rotated out longer ago, presented from anywhere else (or `stale` switched off).
 *   §4.14.2: the server "cannot determine which party submitted the invalid refresh token, but
 *   it will revoke the active refresh token"; the whole grant is revoked with every token it
 *   produced.
 * - `invalid`: revoked, its grant revoked, or expired.
 *
 * Theft stays detectable. A thief's token meets the legitimate client's in one of two orders:
 * the client rotated first, and the thief presents a rotated-out token from its own address:
 * reuse, the grant is revoked; or the thief rotated first, from its address, and the client's
 * next refresh presents the token the thief rotated out, from the client's address, which is
 * not the address that rotated it: reuse, the grant (the thief's tokens with it) is revoked. What
 * goes unnoticed is a thief behind the very same address bucket (the same machine or NAT) who
 * refreshes first; the client then gets the stale-session answer and signs in again, and the
 * grant the thief holds stays listed on the user's connected-apps page until revoked there. A
 * thief on the user's own machine can read every new token anyway. Within the grace window a
 * rotated-out token is answered rather than raising the alarm, as before.
 */
export type RefreshDecision = 'rotate' | 'grace' | 'stale' | 'reuse' | 'invalid';

export interface PresentedRefreshToken {
  rotatedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date;
  grant: { revokedAt: Date | null };
}

export interface ReusePolicy {
  /** REFRESH_REUSE_GRACE_SECONDS. */
  graceSeconds: number;
  /** REFRESH_STALE_SESSIONS_KEEP_GRANT. */
  staleSessionsKeepGrant: boolean;
}

/** `fromRotatingAddress`: the token is presented from the address bucket that rotated it out (rotation-address.ts). */
export function decideRefresh(token: PresentedRefreshToken, now: Date, policy: ReusePolicy, fromRotatingAddress: boolean): RefreshDecision {
  if (token.revokedAt || token.grant.revokedAt || token.expiresAt <= now) return 'invalid';
  if (token.rotatedAt === null) return 'rotate';
  const sinceRotation = now.getTime() - token.rotatedAt.getTime();
  if (policy.graceSeconds > 0 && sinceRotation <= policy.graceSeconds * 1000) return 'grace';
  return policy.staleSessionsKeepGrant && fromRotatingAddress ? 'stale' : 'reuse';
}
