import { Inject, Injectable } from '@nestjs/common';
import type { IntrospectionResponse } from '@platform/contracts';
import { InvalidClientError } from '@platform/oauth-errors';
import { ClientAuthenticator } from '../client-auth/client-authenticator';
import { basicChallenge, readClientCredentials } from '../client-auth/client-credentials';
import { FormParams } from '../http/form-params';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { hashesEqual, hashToken } from '../crypto/tokens';
import { TokenLookup } from '../token/token-lookup';
import { parseTokenTypeHint } from '../token/token-type-hint';

const INACTIVE = { active: false } as const;

type Caller = { kind: 'resource-server' } | { kind: 'client'; clientId: string };

/**
 * RFC 7662 token introspection. §2.1: "the endpoint MUST also require some form of
 * authorization to access this endpoint". Two kinds of caller: the resource server with its
 * configured credentials, which learns about every access token (never about refresh
 * tokens, so one can never pass as a bearer token); and a confidential client, which learns
 * about its own tokens only.
 */
@Injectable()
export class IntrospectionService {
  private readonly resourceServerSecretHash: string;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly clientAuth: ClientAuthenticator,
    private readonly lookup: TokenLookup,
  ) {
    this.resourceServerSecretHash = hashToken(config.introspectionClient.secret);
  }

  async introspect(body: unknown, authorization: string | undefined): Promise<IntrospectionResponse> {
    const params = FormParams.from(body);
    const caller = await this.authenticateCaller(params, authorization);
    const token = params.required('token', 4096);
    const hint = parseTokenTypeHint(params.optional('token_type_hint', 50));

    if (caller.kind === 'resource-server') {
      const accessToken = await this.lookup.findActiveAccessTokenState(token);
      return accessToken ? this.describe('access_token', accessToken) : INACTIVE;
    }
    const found = await this.lookup.findActive(token, hint);
    if (!found || found.token.clientId !== caller.clientId) return INACTIVE;
    return this.describe(found.kind, found.token);
  }

  private describe(
    kind: 'access_token' | 'refresh_token',
    token: {
      scope: string;
      clientId: string;
      issuedAt: Date;
      expiresAt: Date;
      dpopJkt: string | null;
      grant: { userId: string; schoolId: string; resource: string };
    },
  ): IntrospectionResponse {
    return {
      active: true,
      scope: token.scope,
      client_id: token.clientId,
      sub: token.grant.userId,
      aud: token.grant.resource,
      iss: this.config.issuer,
      exp: Math.floor(token.expiresAt.getTime() / 1000),
      iat: Math.floor(token.issuedAt.getTime() / 1000),
      token_type: kind === 'refresh_token' ? 'refresh_token' : token.dpopJkt === null ? 'Bearer' : 'DPoP',
      school_id: token.grant.schoolId,
      // RFC 9449 §6.2: a DPoP-bound token's introspection "MUST" carry cnf with the jkt it is bound to,
      // which the resource server checks each proof's key against.
      ...(token.dpopJkt === null ? {} : { cnf: { jkt: token.dpopJkt } }),
    };
  }

  private async authenticateCaller(params: FormParams, authorization: string | undefined): Promise<Caller> {
    const credentials = readClientCredentials(params, authorization);
    if (credentials.clientId === this.config.introspectionClient.id) {
      if (credentials.clientSecret && hashesEqual(hashToken(credentials.clientSecret), this.resourceServerSecretHash)) {
        return { kind: 'resource-server' };
      }
      // RFC 6749 §5.2: a client that tried HTTP Basic MUST get a WWW-Authenticate challenge with the 401.
      const error = new InvalidClientError('Client authentication failed', 'wrong resource server secret');
      throw credentials.viaBasic ? basicChallenge(error) : error;
    }
    const client = await this.clientAuth.authenticate(credentials);
    if (client.tokenEndpointAuthMethod === 'none') {
      throw new InvalidClientError('Introspection needs a confidential client', 'public client at introspection');
    }
    return { kind: 'client', clientId: client.id };
  }
}
