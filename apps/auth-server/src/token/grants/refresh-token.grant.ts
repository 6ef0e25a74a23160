import { Inject, Injectable } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { InvalidGrantError, InvalidScopeError, UnauthorizedClientError } from '@platform/oauth-errors';
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
import { decideRefresh } from './refresh-reuse';

const INVALID = 'The refresh token is invalid, expired or revoked';

/** RFC 6749 §6 with refresh token rotation (RFC 9700 §4.14.2) and a short reuse window (refresh-reuse.ts). */
@Injectable()
export class RefreshTokenGrant implements GrantHandler {
  readonly grantType = 'refresh_token';

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly tokens: TokensRepository,
    private readonly issuer: TokenIssuer,
    private readonly revoker: GrantRevoker,
  ) {}

  async handle(client: RegisteredClient, params: FormParams): Promise<TokenResponse> {
    const presented = params.required('refresh_token', 512);
    const requestedScope = params.optional('scope', 2000);
    const resources = params.all('resource', 2000);
    if (!client.grantTypes.includes(this.grantType)) {
      throw new UnauthorizedClientError('This client is not registered for the refresh_token grant');
    }

    const stored = await this.tokens.findRefreshTokenByHash(hashToken(presented));
    // §6: the server MUST "validate the refresh token" and check it was issued to this client.
    if (!stored || stored.clientId !== client.id) throw new InvalidGrantError(INVALID);
    if (stored.revokedAt || stored.grant.revokedAt) throw new InvalidGrantError(INVALID, 'revoked');

    const originalScopes = parseScopeString(stored.scope);
    // §6: "The requested scope MUST NOT include any scope not originally granted."
    const accessScopes = requestedScope === undefined ? originalScopes : parseScopeString(requestedScope);
    const beyond = accessScopes.filter((scope) => !originalScopes.includes(scope));
    if (beyond.length > 0) {
      throw new InvalidScopeError(`The requested scope exceeds the grant: ${beyond.slice(0, 3).join(' ')}`);
    }
    if (accessScopes.length === 0) throw new InvalidScopeError('The requested scope is empty');
    // RFC 8707 §2: invalid_target for any resource this server does not serve.
    for (const resource of resources) resolveResource(this.config.apiResource, resource);

    const now = new Date();
    const grace = this.config.ttl.refreshReuseGrace;
    const outcome = await this.tokens.transaction(async (tx) => {
      // The atomic step: of parallel requests with one token, exactly one rotates it. The others
      // wait on the row, then read the committed rotation and fall to the reuse rules.
      const rotated = await this.tokens.rotateRefreshToken(tx, stored.id, now);
      const state = rotated ? { ...stored, rotatedAt: null } : await this.tokens.findRefreshTokenState(tx, stored.id);
      const decision = state ? decideRefresh(state, now, grace) : 'invalid';
      if (decision === 'reuse') return { reused: true as const };
      if (decision === 'invalid') return { invalid: true as const };
      // §6: the new refresh token keeps "identical" scope to the one it replaces. In the reuse
      // window, a sibling pair of the same grant: the successor issued first stays valid.
      return { issued: await this.issuer.issue(tx, { grant: stored.grant, accessScopes, refreshScopes: originalScopes }) };
    });

    if ('reused' in outcome) {
      // RFC 9700 §4.14.2: when a rotated refresh token is presented again, the server
      // "cannot determine which party submitted the refresh token" and revokes the whole grant.
      await this.revoker.revokeGrant(stored.grantId, 'refresh_token_reuse');
      throw new InvalidGrantError(INVALID, 'refresh token reuse');
    }
    if ('invalid' in outcome) throw new InvalidGrantError(INVALID, 'expired or revoked');
    return this.issuer.withIdToken(outcome.issued);
  }
}
