import { Inject, Injectable } from '@nestjs/common';
import type { UserInfoResponse } from '@platform/contracts';
import { bearerChallenge, InsufficientScopeError, InvalidRequestError, InvalidTokenError } from '@platform/oauth-errors';
import { parseScopeString } from '@platform/scopes';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { TokenLookup } from '../token/token-lookup';

/** OpenID Connect Core §5.3, protected as an RFC 6750 resource. */
@Injectable()
export class UserInfoService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly lookup: TokenLookup,
  ) {}

  async userInfo(authorization: string | undefined): Promise<UserInfoResponse> {
    const raw = readBearer(authorization);
    const token = await this.lookup.findActiveAccessToken(raw);
    if (!token) {
      throw new InvalidTokenError('The access token is invalid, expired or revoked').withHeader(
        'www-authenticate',
        bearerChallenge({ error: 'invalid_token', errorDescription: 'The access token is invalid, expired or revoked' }),
      );
    }
    const scopes = parseScopeString(token.scope);
    if (!scopes.includes('openid')) {
      throw new InsufficientScopeError(['openid']).withHeader(
        'www-authenticate',
        bearerChallenge({ error: 'insufficient_scope', scope: 'openid' }),
      );
    }
    const user = token.grant.user;
    return {
      sub: user.id,
      ...(scopes.includes('profile') ? { name: user.name } : {}),
      ...(scopes.includes('email') ? { email: user.email, email_verified: user.emailVerified } : {}),
      school_id: user.schoolId,
      role: user.role,
    };
  }
}

/** RFC 6750 §2.1: `Authorization: Bearer <b64token>`. A missing token is a bare challenge (§3.1). */
function readBearer(authorization: string | undefined): string {
  if (!authorization) {
    throw new InvalidTokenError('An access token is required').withHeader('www-authenticate', bearerChallenge({}));
  }
  const match = authorization.match(/^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i);
  if (!match?.[1]) {
    throw new InvalidRequestError("The Authorization header must be 'Bearer <token>'").withHeader(
      'www-authenticate',
      bearerChallenge({ error: 'invalid_request', errorDescription: 'Malformed Authorization header' }),
    );
  }
  return match[1];
}
