import { Inject, Injectable } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { InvalidGrantError, InvalidRequestError, UnauthorizedClientError } from '@platform/oauth-errors';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { FormParams } from '../../http/form-params';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth-config';
import { hashToken } from '../../crypto/tokens';
import { MAX_RESOURCE_LENGTH, MAX_RESOURCES, resolveResource } from '../../resources/resource-indicator';
import { Clock } from '../../common/clock';
import { tokenBinding } from '../dpop/token-binding';
import { GrantRevoker } from '../grant-revoker';
import { newRefreshFamily } from '../refresh-family';
import { TokenEndpointLimits } from '../token-endpoint-limits';
import { TokenIssuer } from '../token-issuer';
import { AUTHORIZATION_CODE_STORAGE, type AuthorizationCodeStorage } from './authorization-code.storage';
import type { GrantContext, GrantHandler } from './grant-handler';
import { challengeOf, isWellFormedVerifier, verifierMatchesChallenge } from './pkce';
import { AUTHORIZATION_CODE_GRANT, REFRESH_TOKEN_GRANT } from '../../common/supported-grant-types';
import { UnmatchedGrantError } from './unmatched-grant.error';

const INVALID = 'The authorization code is invalid, expired or already used';

/**
 * RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5–4.6). The usual request is one step of its storage:
 * consume the code and store the new tokens (AuthorizationCodeStorage.consumeCode); when that
 * stores nothing, what it returned (or the code's owner) says why. A code that matches nothing of
 * the client's, or whose verifier or redirect_uri does not match, is an UnmatchedGrantError
 * (counted against the caller's address); a known code used again or too late is not.
 */
@Injectable()
export class AuthorizationCodeGrant implements GrantHandler {
  readonly grantType = AUTHORIZATION_CODE_GRANT;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    @Inject(AUTHORIZATION_CODE_STORAGE) private readonly storage: AuthorizationCodeStorage,
    private readonly issuer: TokenIssuer,
    private readonly revoker: GrantRevoker,
    private readonly limits: TokenEndpointLimits,
    private readonly clock: Clock,
  ) {}

  async handle(client: RegisteredClient, params: FormParams, context: GrantContext): Promise<TokenResponse> {
    const code = params.required('code', 512);
    const redirectUri = params.required('redirect_uri', 2000);
    const verifier = params.required('code_verifier', 256);
    // RFC 8707 §2: every resource named here must be one this server issues tokens for.
    for (const resource of params.all('resource', MAX_RESOURCE_LENGTH, MAX_RESOURCES)) resolveResource(this.config.apiResource, resource);
    if (!isWellFormedVerifier(verifier)) {
      throw new InvalidRequestError('code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]');
    }
    if (!client.grantTypes.includes(this.grantType)) {
      throw new UnauthorizedClientError('This client is not registered for the authorization_code grant');
    }

    const codeHash = hashToken(code);
    // A new grant: its refresh tokens start a family of their own (refresh-family.ts).
    const family = client.grantTypes.includes(REFRESH_TOKEN_GRANT) ? newRefreshFamily() : null;
    const minted = this.issuer.mint(family, tokenBinding(client, context.dpopJkt));
    // RFC 6749 §4.1.2: "The client MUST NOT use the authorization code more than once." Of
    // parallel exchanges of one code exactly one consumes it; the tokens are stored with it when
    // the checks pass.
    const consumed = await this.storage.consumeCode(
      { codeHash, clientId: client.id, redirectUri, codeChallenge: challengeOf(verifier), dpopJkt: context.dpopJkt },
      minted.stored,
      { grantType: this.grantType, ...context.origin },
    );
    if (consumed?.issued) {
      this.limits.issued(family ?? undefined, consumed.issued.userId);
      return this.issuer.respond({ minted, grant: consumed.issued });
    }

    if (!consumed) {
      // RFC 6749 §4.1.3: "ensure that the authorization code was issued to the authenticated client".
      const stored = await this.storage.findCodeOwner(codeHash);
      if (!stored || stored.clientId !== client.id) throw new UnmatchedGrantError(INVALID);
      // RFC 9449 §10: a code bound with dpop_jkt is exchanged only with a proof by that key. Nothing
      // was consumed: the client holding the key can still exchange it.
      if (!stored.consumed && stored.dpopJkt !== null && stored.dpopJkt !== context.dpopJkt) {
        throw new InvalidGrantError(
          'The authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof signed with that key',
          context.dpopJkt === null ? 'dpop_jkt without a proof' : 'dpop_jkt of another key',
        );
      }
      // RFC 9700 §4.5 / RFC 6749 §4.1.2: "If an authorization code is used more than once,
      // the authorization server MUST deny the request and SHOULD revoke (when possible) all
      // tokens previously issued based on that authorization code."
      await this.revoker.revokeGrant(stored.grantId, 'code_replay');
      throw new InvalidGrantError(INVALID, 'code replay');
    }
    // Consumed, but refused (the code is used up all the same):
    if (consumed.expiresAt <= this.clock.now() || consumed.grantRevokedAt) {
      throw new InvalidGrantError(INVALID, 'expired or revoked');
    }
    // §4.1.3: the redirect_uri must be "identical" to the one of the authorization request.
    if (redirectUri !== consumed.redirectUri) {
      throw new UnmatchedGrantError('redirect_uri does not match the one of the authorization request', 'redirect_uri does not match');
    }
    if (!verifierMatchesChallenge(verifier, consumed.codeChallenge)) {
      throw new UnmatchedGrantError('PKCE verification failed: code_verifier does not match the code_challenge', 'PKCE verification failed');
    }
    throw new InvalidGrantError(INVALID, 'refused');
  }
}
