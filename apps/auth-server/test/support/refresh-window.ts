import { hashToken } from '../../src/crypto/tokens';
import { PrismaService } from '../../src/database/prisma.service';
import type { TestAuthServer } from './test-auth-server';

/**
 * Moves the rotation of a refresh token back past the reuse window (REFRESH_REUSE_GRACE_SECONDS),
 * as if it had rotated long ago: "after the window" without waiting for it. The rotating request's
 * address tag is cleared, as for a rotation from another address: presented again, the token is
 * reuse (a presentation from the rotating address is a stale session: stale-sessions.e2e).
 */
export async function rotatedBeyondReuseWindow(server: TestAuthServer, refreshToken: string): Promise<void> {
  const rotatedAt = new Date(Date.now() - (server.config.ttl.refreshReuseGrace + 1) * 1000);
  const { count } = await server.app.get(PrismaService).refreshToken.updateMany({
    where: { tokenHash: hashToken(refreshToken), rotatedAt: { not: null } },
    data: { rotatedAt, rotationAddressTag: null },
  });
  if (count !== 1) throw new Error('the refresh token has not rotated');
}
