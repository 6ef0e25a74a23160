import { Inject, Injectable } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { InvalidGrantError, InvalidRequestError, UnauthorizedClientError } from '@platform/oauth-errors';
import { parseScopeString } from '@platform/scopes';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { FormParams } from '../../client-auth/form-params';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth-config';
import { hashToken } from '../../crypto/tokens';
import { resolveResource } from '../../resources/resource-indicator';
import { GrantRevoker } from '../grant-revoker';
import { TokenIssuer } from '../token-issuer';
import { TokensRepository } from '../tokens.repository';
import type { GrantHandler } from './grant-handler';
import { isWellFormedVerifier, verifierMatchesChallenge } from './pkce';

/** RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5–4.6). */
@Injectable()
export class AuthorizationCodeGrant implements GrantHandler {
  readonly grantType = 'authorization_code';

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly tokens: TokensRepository,
    private readonly issuer: TokenIssuer,
    private readonly revoker: GrantRevoker,
  ) {}

  async handle(client: RegisteredClient, params: FormParams): Promise<TokenResponse> {
    const code = params.required('code', 512);
    const redirectUri = params.required('redirect_uri', 2000);
    const verifier = params.required('code_verifier', 256);
    // RFC 8707 §2: every resource named here must be one this server issues tokens for.
    for (const resource of params.all('resource', 2000)) resolveResource(this.config.apiResource, resource);
    if (!isWellFormedVerifier(verifier)) {
      throw new InvalidRequestError('code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]');
    }
    if (!client.grantTypes.includes(this.grantType)) {
      throw new UnauthorizedClientError('This client is not registered for the authorization_code grant');
    }

    const stored = await this.tokens.findCodeByHash(hashToken(code));
    // RFC 6749 §4.1.3: "ensure that the authorization code was issued to the authenticated client".
    if (!stored || stored.grant.clientId !== client.id) {
      throw new InvalidGrantError('The authorization code is invalid, expired or already used');
    }

    const now = new Date();
    const outcome = await this.tokens.transaction(async (tx) => {
      // RFC 6749 §4.1.2: "The client MUST NOT use the authorization code more than once."
      if (!(await this.tokens.consumeCode(tx, stored.id, now))) return { replayed: true as const };
      if (stored.expiresAt <= now || stored.grant.revokedAt) return { invalid: 'expired or revoked' };
      // §4.1.3: the redirect_uri must be "identical" to the one of the authorization request.
      if (redirectUri !== stored.redirectUri) return { invalid: 'redirect_uri does not match' };
      if (!verifierMatchesChallenge(verifier, stored.codeChallenge)) return { invalid: 'PKCE verification failed' };

      const scopes = parseScopeString(stored.grant.scope);
      const issued = await this.issuer.issue(tx, {
        grant: stored.grant,
        accessScopes: scopes,
        refreshScopes: client.grantTypes.includes('refresh_token') ? scopes : null,
      });
      return { issued };
    });

    if ('replayed' in outcome) {
      // RFC 9700 §4.5 / RFC 6749 §4.1.2: "If an authorization code is used more than once,
      // the authorization server MUST deny the request and SHOULD revoke (when possible) all
      // tokens previously issued based on that authorization code."
      await this.revoker.revokeGrant(stored.grantId, 'code_replay');
      throw new InvalidGrantError('The authorization code is invalid, expired or already used', 'code replay');
    }
    if ('invalid' in outcome) {
      const description =
        outcome.invalid === 'PKCE verification failed'
          ? 'PKCE verification failed: code_verifier does not match the code_challenge'
          : outcome.invalid === 'redirect_uri does not match'
            ? 'redirect_uri does not match the one of the authorization request'
            : 'The authorization code is invalid, expired or already used';
      throw new InvalidGrantError(description, outcome.invalid);
    }
    return this.issuer.withIdToken(outcome.issued);
  }
}
