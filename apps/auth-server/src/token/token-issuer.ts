import { Inject, Injectable, Optional } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { randomUUID } from 'node:crypto';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken, hashToken } from '../crypto/tokens';
import { SigningKeysService } from '../keys/signing-keys.service';
import { ActiveAccessTokens } from './active-access-tokens';
import { Clock } from './clock';
import type { IssuedRow, NewTokens } from './token-queries';

export interface IssuedTokens {
  response: Omit<TokenResponse, 'id_token'>;
  /** The resource owner of the grant the tokens belong to (the per-user limit). */
  userId: string;
  /** Present when `openid` is among the access scopes: the claims to sign. */
  idTokenClaims?: Record<string, unknown>;
}

/** A statement that inserts the given tokens if its conditions hold (token-queries.ts), and says for which grant. */
export type IssuingStatement = (tokens: NewTokens) => Promise<IssuedRow | null>;

/**
 * Makes new token values, has an issuing statement store their hashes, and answers with the
 * raw values (they exist in this response alone). The new access token is held in memory at
 * once (ActiveAccessTokens): its first introspection needs no database read.
 */
@Injectable()
export class TokenIssuer {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly keys: SigningKeysService,
    private readonly activeTokens: ActiveAccessTokens,
    // Optional: the unit specs' issuer runs on the system clock.
    @Optional() private readonly clock: Clock = new Clock(),
  ) {}

  /**
   * Null when the statement issued nothing (its conditions did not hold). `refreshFamily`: the
   * family id the new refresh token starts with (refresh-family.ts); null: no refresh token (a
   * client not registered for the refresh_token grant).
   */
  async issue(refreshFamily: string | null, statement: IssuingStatement): Promise<IssuedTokens | null> {
    const now = this.clock.now();
    const accessToken = generateOpaqueToken();
    const refreshToken = refreshFamily === null ? undefined : refreshFamily + generateOpaqueToken();
    const tokens: NewTokens = {
      now,
      access: { id: randomUUID(), tokenHash: hashToken(accessToken), expiresAt: this.expiry(now, this.config.ttl.accessToken) },
      refresh: refreshToken
        ? { id: randomUUID(), tokenHash: hashToken(refreshToken), expiresAt: this.expiry(now, this.config.ttl.refreshToken) }
        : null,
    };
    const period = this.activeTokens.trustPeriod();
    const grant = await statement(tokens);
    if (!grant) return null;
    this.activeTokens.remember(
      {
        id: tokens.access.id,
        tokenHash: tokens.access.tokenHash,
        grantId: grant.grantId,
        clientId: grant.clientId,
        scope: grant.accessScope,
        issuedAt: now,
        expiresAt: tokens.access.expiresAt,
        grant: { userId: grant.userId, schoolId: grant.schoolId, resource: grant.resource },
      },
      period,
    );

    const response: IssuedTokens['response'] = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.config.ttl.accessToken,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: grant.accessScope,
    };
    if (!grant.accessScope.split(' ').includes('openid')) return { response, userId: grant.userId };
    return {
      response,
      userId: grant.userId,
      idTokenClaims: {
        iss: this.config.issuer,
        sub: grant.userId,
        aud: grant.clientId,
        auth_time: Math.floor(grant.authTime.getTime() / 1000),
        ...(grant.nonce ? { nonce: grant.nonce } : {}),
      },
    };
  }

  /** OpenID Connect Core §2: the ID token, RS256-signed with the active key. */
  async withIdToken(issued: IssuedTokens): Promise<TokenResponse> {
    if (!issued.idTokenClaims) return issued.response;
    const idToken = await this.keys.sign(issued.idTokenClaims, this.config.ttl.accessToken);
    return { ...issued.response, id_token: idToken };
  }

  private expiry(now: Date, seconds: number): Date {
    return new Date(now.getTime() + seconds * 1000);
  }
}
