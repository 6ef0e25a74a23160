import { Inject, Injectable } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { formatScopes } from '@platform/scopes';
import { randomUUID } from 'node:crypto';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken, hashToken } from '../crypto/tokens';
import type { Prisma } from '../generated/prisma/client';
import { SigningKeysService } from '../keys/signing-keys.service';
import { TokensRepository } from './tokens.repository';

export interface GrantContext {
  id: string;
  clientId: string;
  userId: string;
  schoolId: string;
  resource: string;
  nonce: string | null;
  authTime: Date;
}

export interface IssueRequest {
  grant: GrantContext;
  /** Scopes of the new access token. */
  accessScopes: readonly string[];
  /** Scopes of the new refresh token (RFC 6749 §6: identical to the one it replaces); null: none. */
  refreshScopes: readonly string[] | null;
}

export interface IssuedTokens {
  response: Omit<TokenResponse, 'id_token'>;
  /** Present when `openid` is among the access scopes: the claims to sign after commit. */
  idTokenClaims?: Record<string, unknown>;
}

/**
 * Creates an access token and (optionally) a refresh token inside the caller's transaction.
 * Only hashes are stored; the raw values exist in this response alone.
 */
@Injectable()
export class TokenIssuer {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly tokens: TokensRepository,
    private readonly keys: SigningKeysService,
  ) {}

  async issue(tx: Prisma.TransactionClient, request: IssueRequest): Promise<IssuedTokens> {
    const { grant } = request;
    const now = new Date();
    const accessToken = generateOpaqueToken();
    const accessScope = formatScopes(request.accessScopes);

    let refreshToken: string | undefined;
    let refreshTokenId: string | null = null;
    if (request.refreshScopes) {
      refreshToken = generateOpaqueToken();
      refreshTokenId = randomUUID();
      await this.tokens.insertRefreshToken(tx, {
        id: refreshTokenId,
        tokenHash: hashToken(refreshToken),
        grantId: grant.id,
        clientId: grant.clientId,
        scope: formatScopes(request.refreshScopes),
        resource: grant.resource,
        issuedAt: now,
        expiresAt: new Date(now.getTime() + this.config.ttl.refreshToken * 1000),
      });
    }
    await this.tokens.insertAccessToken(tx, {
      tokenHash: hashToken(accessToken),
      grantId: grant.id,
      refreshTokenId,
      clientId: grant.clientId,
      userId: grant.userId,
      schoolId: grant.schoolId,
      scope: accessScope,
      audience: grant.resource,
      issuedAt: now,
      expiresAt: new Date(now.getTime() + this.config.ttl.accessToken * 1000),
    });

    const response: IssuedTokens['response'] = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.config.ttl.accessToken,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: accessScope,
    } as IssuedTokens['response'];

    if (!request.accessScopes.includes('openid')) return { response };
    return {
      response,
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
    if (!issued.idTokenClaims) return issued.response as TokenResponse;
    const idToken = await this.keys.sign(issued.idTokenClaims, this.config.ttl.accessToken);
    return { ...issued.response, id_token: idToken } as TokenResponse;
  }
}
