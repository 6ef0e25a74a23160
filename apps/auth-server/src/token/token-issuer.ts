import { Inject, Injectable, Optional } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { randomUUID } from 'node:crypto';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken, hashToken } from '../crypto/tokens';
import { SigningKeysService } from '../keys/signing-keys.service';
import { Clock } from '../common/clock';
import type { TokenBinding } from './dpop/token-binding';
import type { IssuedGrant, NewTokens } from './token-rows';

/** New tokens of one response: the raw values (they exist in this response alone) and what is stored of them. */
export interface MintedTokens {
  accessToken: string;
  refreshToken: string | undefined;
  stored: NewTokens;
}

/** Minted tokens the storage stored, in `grant`. */
export interface IssuedTokens {
  minted: MintedTokens;
  grant: IssuedGrant;
}

/**
 * Makes new token values for a grant to store (hashes only), and the token response (RFC 6749
 * §5.1) once it has stored them, with an ID token when `openid` was granted.
 */
@Injectable()
export class TokenIssuer {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly keys: SigningKeysService,
    // Optional: the unit specs' issuer runs on the system clock.
    @Optional() private readonly clock: Clock = new Clock(),
  ) {}

  /**
   * `refreshFamily`: the family id the new refresh token starts with (refresh-family.ts); null: no
   * refresh token (a client not registered for the refresh_token grant). `binding`: the DPoP keys
   * the new tokens are bound to (token-binding.ts).
   */
  mint(refreshFamily: string | null, binding: TokenBinding): MintedTokens {
    const now = this.clock.now();
    const accessToken = generateOpaqueToken();
    const refreshToken = refreshFamily === null ? undefined : refreshFamily + generateOpaqueToken();
    return {
      accessToken,
      refreshToken,
      stored: {
        now,
        access: {
          id: randomUUID(),
          tokenHash: hashToken(accessToken),
          expiresAt: this.expiry(now, this.config.ttl.accessToken),
          dpopJkt: binding.access,
        },
        refresh: refreshToken
          ? { id: randomUUID(), tokenHash: hashToken(refreshToken), expiresAt: this.expiry(now, this.config.ttl.refreshToken), dpopJkt: binding.refresh }
          : null,
      },
    };
  }

  /** The token response; OpenID Connect Core §2: the ID token, RS256-signed with the active key. */
  async respond({ minted, grant }: IssuedTokens): Promise<TokenResponse> {
    const response: TokenResponse = {
      access_token: minted.accessToken,
      // RFC 9449 §5: "token_type" DPoP for an access token bound to a DPoP key.
      token_type: minted.stored.access.dpopJkt === null ? 'Bearer' : 'DPoP',
      expires_in: this.config.ttl.accessToken,
      ...(minted.refreshToken ? { refresh_token: minted.refreshToken } : {}),
      scope: grant.accessScope,
    };
    if (!grant.accessScope.split(' ').includes('openid')) return response;
    const claims = {
      iss: this.config.issuer,
      sub: grant.userId,
      aud: grant.clientId,
      auth_time: Math.floor(grant.authTime.getTime() / 1000),
      ...(grant.nonce ? { nonce: grant.nonce } : {}),
    };
    return { ...response, id_token: await this.keys.sign(claims, this.config.ttl.accessToken) };
  }

  private expiry(now: Date, seconds: number): Date {
    return new Date(now.getTime() + seconds * 1000);
  }
}
