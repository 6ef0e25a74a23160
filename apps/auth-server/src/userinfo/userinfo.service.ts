import { Injectable } from '@nestjs/common';
import type { UserInfoResponse } from '@platform/contracts';
import { InsufficientScopeError, InvalidTokenError, OAuthError } from '@platform/oauth-errors';
import { parseScopeString } from '@platform/scopes';
import type { AccessTokenWithUser } from '../token/token-rows';
import { TokenLookup } from '../token/token-lookup';
import { withUserInfoChallenge } from './userinfo-challenges';
import { presentedToken, type PresentedToken } from './userinfo-credentials';
import { UserInfoDpop } from './userinfo-dpop';

/** What userinfo reads of a request: its method, Authorization and DPoP headers. */
export interface UserInfoRequest {
  method: string;
  authorization?: string;
  dpop?: string | string[];
}

const INVALID_TOKEN = 'The access token is invalid, expired or revoked';

/** OpenID Connect Core §5.3, protected as an RFC 6750 and RFC 9449 §7 resource. */
@Injectable()
export class UserInfoService {
  constructor(
    private readonly lookup: TokenLookup,
    private readonly dpop: UserInfoDpop,
  ) {}

  async userInfo(request: UserInfoRequest): Promise<UserInfoResponse> {
    let presented: PresentedToken | undefined;
    try {
      presented = presentedToken(request.authorization);
      const token = await this.authenticate(presented, request);
      return claimsOf(token);
    } catch (error) {
      throw error instanceof OAuthError ? withUserInfoChallenge(error, presented?.scheme) : error;
    }
  }

  private async authenticate({ scheme, token: raw }: PresentedToken, request: UserInfoRequest): Promise<AccessTokenWithUser> {
    const proofKey = scheme === 'DPoP' ? await this.dpop.proofKey(request.dpop, request.method, raw) : undefined;
    const token = await this.lookup.findActiveAccessToken(raw);
    if (!token) throw new InvalidTokenError(INVALID_TOKEN);
    if (scheme === 'Bearer') {
      // RFC 9449 §7.2: a server taking both schemes "MUST reject a DPoP-bound access token
      // received as a bearer token": whoever copied the token would need no key.
      if (token.dpopJkt !== null) throw new InvalidTokenError('This access token is bound to a DPoP key: present it with the DPoP scheme and a proof');
      return token;
    }
    // RFC 9449 §7: the server MUST "ensure that the public key to which the access token is bound
    // matches the public key of the DPoP proof". A token bound to no key cannot match: refused, as
    // the resource server refuses it, rather than taken as if it were bound.
    if (token.dpopJkt === null) throw new InvalidTokenError('This access token is not bound to a DPoP key: present it with the Bearer scheme');
    if (token.dpopJkt !== proofKey) throw new InvalidTokenError('Invalid DPoP key binding', 'the proof is signed by another key than the token is bound to');
    return token;
  }
}

function claimsOf(token: AccessTokenWithUser): UserInfoResponse {
  const scopes = parseScopeString(token.scope);
  if (!scopes.includes('openid')) throw new InsufficientScopeError(['openid']);
  const user = token.grant.user;
  return {
    sub: user.id,
    ...(scopes.includes('profile') ? { name: user.name } : {}),
    ...(scopes.includes('email') ? { email: user.email, email_verified: user.emailVerified } : {}),
    school_id: user.schoolId,
    role: user.role,
  };
}
