import { Injectable, Optional } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { currentRequestId } from '@platform/logging';
import { InvalidDpopProofError, UnsupportedGrantTypeError } from '@platform/oauth-errors';
import { addressBucket } from '@platform/rate-limits';
import { ClientAuthenticator } from '../client-auth/client-authenticator';
import { readClientCredentials } from '../client-auth/client-credentials';
import { FormParams } from '../http/form-params';
import { AuthMetrics } from '../observability/auth-metrics';
import { TokenEndpointDpop } from './dpop/token-endpoint-dpop';
import { AuthorizationCodeGrant } from './grants/authorization-code.grant';
import type { GrantHandler } from './grants/grant-handler';
import { RefreshTokenGrant } from './grants/refresh-token.grant';
import { SUPPORTED_GRANT_TYPES } from '../common/supported-grant-types';
import { TokenEndpointLimits } from './token-endpoint-limits';

/**
 * The token endpoint: read the grant type, authenticate the client, spend its budget if it
 * authenticated, check its DPoP proof if any, run the grant; a failure that looks like guessing is
 * counted against the caller's address (TokenEndpointLimits).
 */
@Injectable()
export class TokenService {
  private readonly grants: ReadonlyMap<string, GrantHandler>;

  constructor(
    private readonly clientAuth: ClientAuthenticator,
    authorizationCode: AuthorizationCodeGrant,
    refreshToken: RefreshTokenGrant,
    private readonly limits: TokenEndpointLimits,
    private readonly dpop: TokenEndpointDpop,
    // Optional: test modules built without the app's ObservabilityModule still work.
    @Optional() private readonly metrics?: AuthMetrics,
  ) {
    this.grants = new Map([authorizationCode, refreshToken].map((grant) => [grant.grantType, grant]));
    // Discovery advertises SUPPORTED_GRANT_TYPES: the handlers must be exactly those.
    const handled = [...this.grants.keys()].sort().join(' ');
    if (handled !== [...SUPPORTED_GRANT_TYPES].sort().join(' ')) {
      throw new Error(`The token endpoint's grant handlers (${handled}) are not SUPPORTED_GRANT_TYPES (${SUPPORTED_GRANT_TYPES.join(' ')})`);
    }
  }

  /**
   * `clientIp`: the caller's address (request.ip: X-Forwarded-For believed from TRUSTED_PROXIES only);
   * `dpopProof`: the request's DPoP header(s), if any (RFC 9449 §5).
   */
  async exchange(body: unknown, authorization: string | undefined, clientIp: string, dpopProof?: string | string[]): Promise<TokenResponse> {
    const address = addressBucket(clientIp);
    try {
      const params = FormParams.from(body);
      const grantType = params.required('grant_type', 100);
      const grant = this.grants.get(grantType);
      if (!grant) throw new UnsupportedGrantTypeError(`Unsupported grant_type; supported: ${[...this.grants.keys()].join(', ')}`);
      const client = await this.clientAuth.authenticate(readClientCredentials(params, authorization));
      const admitted = this.limits.admitClient(client);
      if (admitted) await admitted;
      const dpopJkt = await this.dpop.proofKey(dpopProof);
      // RFC 9449 §5.2: with dpop_bound_access_tokens the server "MUST reject token requests from the
      // client that do not contain the DPoP header".
      if (dpopJkt === null && client.dpopBoundAccessTokens) {
        throw new InvalidDpopProofError('A DPoP proof is required: this client registered dpop_bound_access_tokens');
      }
      const response = await grant.handle(client, params, { address, dpopJkt, origin: { address: clientIp, requestId: currentRequestId() ?? null } });
      this.metrics?.tokenIssued(grantType);
      return response;
    } catch (error) {
      await this.limits.failed(address, error);
      throw error;
    }
  }
}
