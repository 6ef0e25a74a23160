import { Injectable } from '@nestjs/common';
import { hashToken } from '../crypto/tokens';
import type { AccessTokenWithUser, ActiveAccessTokenRow, RefreshTokenRow } from './token-rows';
import { TokenStore } from './token-store';

export type ActiveToken =
  | { kind: 'access_token'; token: ActiveAccessTokenRow }
  | { kind: 'refresh_token'; token: RefreshTokenRow };

/** Opaque tokens are bounded base64url strings; anything else cannot be one of ours. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,128}$/;

/** Finds a live token from its raw value: not expired, not revoked, its grant not revoked. */
@Injectable()
export class TokenLookup {
  constructor(private readonly store: TokenStore) {}

  /** With its grant's user (userinfo). */
  async findActiveAccessToken(raw: string, now = new Date()): Promise<AccessTokenWithUser | null> {
    if (!TOKEN_SHAPE.test(raw)) return null;
    return this.store.findActiveAccessTokenWithUser(hashToken(raw), now);
  }

  /** As introspection answers it: from memory when held (ActiveAccessTokens). */
  async findActiveAccessTokenState(raw: string, now = new Date()): Promise<ActiveAccessTokenRow | null> {
    if (!TOKEN_SHAPE.test(raw)) return null;
    return this.store.findActiveAccessToken(hashToken(raw), now);
  }

  async findActiveRefreshToken(raw: string, now = new Date()): Promise<RefreshTokenRow | null> {
    if (!TOKEN_SHAPE.test(raw)) return null;
    const token = await this.store.findRefreshToken(hashToken(raw));
    if (!token || token.revokedAt || token.rotatedAt || token.grant.revokedAt || token.expiresAt <= now) return null;
    return token;
  }

  /**
   * A refresh token already rotated out whose grant is still alive. Not usable (not active),
   * but revoking it must still end its grant (revocation.service.ts).
   */
  async findRotatedRefreshToken(raw: string): Promise<RefreshTokenRow | null> {
    if (!TOKEN_SHAPE.test(raw)) return null;
    const token = await this.store.findRefreshToken(hashToken(raw));
    if (!token || !token.rotatedAt || token.revokedAt || token.grant.revokedAt) return null;
    return token;
  }

  /** RFC 7009 §2.1 / RFC 7662 §2.1: the hint is tried first, then every other type. */
  async findActive(raw: string, hint?: 'access_token' | 'refresh_token'): Promise<ActiveToken | null> {
    const order: ('access_token' | 'refresh_token')[] =
      hint === 'refresh_token' ? ['refresh_token', 'access_token'] : ['access_token', 'refresh_token'];
    for (const kind of order) {
      if (kind === 'access_token') {
        const token = await this.findActiveAccessTokenState(raw);
        if (token) return { kind, token };
      } else {
        const token = await this.findActiveRefreshToken(raw);
        if (token) return { kind, token };
      }
    }
    return null;
  }
}
