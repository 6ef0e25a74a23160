import { Inject, Injectable } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { InvalidGrantError, InvalidScopeError, UnauthorizedClientError } from '@platform/oauth-errors';
import { formatScopes, parseScopeString, scopesOutside } from '@platform/scopes';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { FormParams } from '../../http/form-params';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth-config';
import { hashToken } from '../../crypto/tokens';
import { MAX_RESOURCE_LENGTH, MAX_RESOURCES, resolveResource } from '../../resources/resource-indicator';
import { GrantRevoker } from '../grant-revoker';
import { type IssuedTokens, TokenIssuer } from '../token-issuer';
import { TokenQueries } from '../token-queries';
import type { GrantHandler } from './grant-handler';
import { decideRefresh } from './refresh-reuse';
import { REFRESH_TOKEN_GRANT } from './supported-grant-types';

const INVALID = 'The refresh token is invalid, expired or revoked';

interface RefreshRequest {
  presentedHash: string;
  /** The parsed `scope` parameter (unknown names included), or null when absent. */
  requestedScopes: string[] | null;
  resources: string[];
}

/**
 * RFC 6749 §6 with refresh token rotation (RFC 9700 §4.14.2) and a short reuse window
 * (refresh-reuse.ts). The usual request is one statement: rotate the current token and issue
 * its successor pair (TokenQueries.rotateRefreshTokenAndIssue). When that rotates nothing, the
 * token's committed state says why, checked in the order of §6.
 */
@Injectable()
export class RefreshTokenGrant implements GrantHandler {
  readonly grantType = REFRESH_TOKEN_GRANT;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly queries: TokenQueries,
    private readonly issuer: TokenIssuer,
    private readonly revoker: GrantRevoker,
  ) {}

  async handle(client: RegisteredClient, params: FormParams): Promise<TokenResponse> {
    const presented = params.required('refresh_token', 512);
    const requestedScope = params.optional('scope', 2000);
    const request: RefreshRequest = {
      presentedHash: hashToken(presented),
      requestedScopes: requestedScope === undefined ? null : parseScopeString(requestedScope),
      resources: params.all('resource', MAX_RESOURCE_LENGTH, MAX_RESOURCES),
    };
    if (!client.grantTypes.includes(this.grantType)) {
      throw new UnauthorizedClientError('This client is not registered for the refresh_token grant');
    }
    const issued = (this.mayRotateAtOnce(request) ? await this.rotate(client, request) : null) ?? (await this.afterNoRotation(client, request));
    return this.issuer.withIdToken(issued);
  }

  /** A request the token's state alone can refuse: its scope is not empty and its resources are ours. */
  private mayRotateAtOnce(request: RefreshRequest): boolean {
    if (request.requestedScopes?.length === 0) return false;
    return request.resources.every((resource) => {
      try {
        resolveResource(this.config.apiResource, resource);
        return true;
      } catch {
        return false;
      }
    });
  }

  /**
   * The atomic step: of parallel requests with one token, exactly one rotates it. The others
   * wait on the row, then find it rotated and get null (then the reuse rules).
   */
  private rotate(client: RegisteredClient, request: RefreshRequest): Promise<IssuedTokens | null> {
    const requested = request.requestedScopes && { scopes: request.requestedScopes, scope: formatScopes(request.requestedScopes) };
    return this.issuer.issue(true, (tokens) =>
      this.queries.rotateRefreshTokenAndIssue(request.presentedHash, client.id, requested, tokens),
    );
  }

  /** Nothing rotated: the token's committed state, checked in the order of §6, says what to answer. */
  private async afterNoRotation(client: RegisteredClient, request: RefreshRequest): Promise<IssuedTokens> {
    const stored = await this.queries.findRefreshTokenByHash(request.presentedHash);
    // §6: the server MUST "validate the refresh token" and check it was issued to this client.
    if (!stored || stored.clientId !== client.id) throw new InvalidGrantError(INVALID);
    if (stored.revokedAt || stored.grant.revokedAt) throw new InvalidGrantError(INVALID, 'revoked');

    const originalScopes = parseScopeString(stored.scope);
    // §6: "The requested scope MUST NOT include any scope not originally granted."
    const accessScopes = request.requestedScopes ?? originalScopes;
    const beyond = scopesOutside(accessScopes, originalScopes);
    if (beyond.length > 0) {
      throw new InvalidScopeError(`The requested scope exceeds the grant: ${beyond.slice(0, 3).join(' ')}`);
    }
    if (accessScopes.length === 0) throw new InvalidScopeError('The requested scope is empty');
    // RFC 8707 §2: invalid_target for any resource this server does not serve.
    for (const resource of request.resources) resolveResource(this.config.apiResource, resource);

    const decision = decideRefresh(stored, new Date(), this.config.ttl.refreshReuseGrace);
    if (decision === 'grace') {
      // §6: the new refresh token keeps "identical" scope to the one it replaces. In the reuse
      // window, a sibling pair of the same grant: the successor issued first stays valid.
      const sibling = await this.issuer.issue(true, (tokens) =>
        this.queries.issueForGrant(stored.grantId, stored.scope, formatScopes(accessScopes), tokens),
      );
      if (sibling) return sibling;
      throw new InvalidGrantError(INVALID, 'grant revoked meanwhile');
    }
    if (decision === 'reuse') {
      // RFC 9700 §4.14.2: when a rotated refresh token is presented again, the server
      // "cannot determine which party submitted the refresh token" and revokes the whole grant.
      await this.revoker.revokeGrant(stored.grantId, 'refresh_token_reuse');
      throw new InvalidGrantError(INVALID, 'refresh token reuse');
    }
    // 'invalid' (expired), or 'rotate': current again by now, which only a race can produce;
    // the client may try again.
    throw new InvalidGrantError(INVALID, decision === 'rotate' ? 'not rotated' : 'expired or revoked');
  }
}
