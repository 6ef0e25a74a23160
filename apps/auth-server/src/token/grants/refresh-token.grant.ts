import { Inject, Injectable, Logger } from '@nestjs/common';
import type { TokenResponse } from '@platform/contracts';
import { InvalidGrantError, InvalidScopeError, UnauthorizedClientError } from '@platform/oauth-errors';
import { formatScopes, parseScopeString, scopesOutside } from '@platform/scopes';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { FormParams } from '../../http/form-params';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth-config';
import { hashToken } from '../../crypto/tokens';
import { MAX_RESOURCE_LENGTH, MAX_RESOURCES, resolveResource } from '../../resources/resource-indicator';
import { Clock } from '../../common/clock';
import { type TokenBinding, tokenBinding } from '../dpop/token-binding';
import { GrantRevoker } from '../grant-revoker';
import { newRefreshFamily, refreshFamilyOf } from '../refresh-family';
import { rotationAddressTag } from '../rotation-address';
import { TokenEndpointLimits } from '../token-endpoint-limits';
import { TokenEndpointMetrics } from '../token-endpoint-metrics';
import { type IssuedTokens, TokenIssuer } from '../token-issuer';
import type { RefreshTokenRow } from '../token-rows';
import { refreshTokenReuseDetected } from '../../security-events/recorded-events';
import type { IssuingRequest, TokenRequestOrigin } from '../../security-events/token-issued-event';
import type { GrantContext, GrantHandler } from './grant-handler';
import { REFRESH_TOKEN_STORAGE, type RefreshTokenStorage } from './refresh-token.storage';
import { decideRefresh, type ReusePolicy } from './refresh-reuse';
import { REFRESH_TOKEN_GRANT } from '../../common/supported-grant-types';
import { UnmatchedGrantError } from './unmatched-grant.error';

const INVALID = 'The refresh token is invalid, expired or revoked';

interface RefreshRequest {
  presentedHash: string;
  /** The parsed `scope` parameter (unknown names included), or null when absent. */
  requestedScopes: string[] | null;
  resources: string[];
  /** The family of the presented token, which its successors keep (a new one for a token without). */
  family: string;
  /** The family the presented token names, if any: the per-grant limit's key. */
  presentedFamily: string | undefined;
  /** The caller's address bucket. */
  address: string;
  /** The thumbprint of the request's DPoP key; null without a proof. */
  dpopJkt: string | null;
  /** What the new tokens are bound to (token-binding.ts). */
  binding: TokenBinding;
  /** The request as its security events name it. */
  origin: TokenRequestOrigin;
}

/**
 * RFC 6749 §6 with refresh token rotation (RFC 9700 §4.14.2), a short reuse window and the
 * stale sessions of agent CLIs (refresh-reuse.ts). The usual request is one step of its storage:
 * rotate the current token and store its successor pair (RefreshTokenStorage.rotateRefreshToken).
 * When that rotates nothing, the token's committed state says why, checked in the order of §6.
 * A grant over its budget is refused before anything rotates (TokenEndpointLimits).
 */
@Injectable()
export class RefreshTokenGrant implements GrantHandler {
  readonly grantType = REFRESH_TOKEN_GRANT;
  private readonly logger = new Logger('RefreshTokenGrant');
  private readonly policy: ReusePolicy;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    @Inject(REFRESH_TOKEN_STORAGE) private readonly storage: RefreshTokenStorage,
    private readonly issuer: TokenIssuer,
    private readonly revoker: GrantRevoker,
    private readonly limits: TokenEndpointLimits,
    private readonly metrics: TokenEndpointMetrics,
    private readonly clock: Clock,
  ) {
    this.policy = { graceSeconds: config.ttl.refreshReuseGrace, staleSessionsKeepGrant: config.limits.refreshStaleSessionsKeepGrant };
  }

  async handle(client: RegisteredClient, params: FormParams, context: GrantContext): Promise<TokenResponse> {
    const presented = params.required('refresh_token', 512);
    const requestedScope = params.optional('scope', 2000);
    const presentedFamily = refreshFamilyOf(presented);
    const request: RefreshRequest = {
      presentedHash: hashToken(presented),
      requestedScopes: requestedScope === undefined ? null : parseScopeString(requestedScope),
      resources: params.all('resource', MAX_RESOURCE_LENGTH, MAX_RESOURCES),
      family: presentedFamily ?? newRefreshFamily(),
      presentedFamily,
      address: context.address,
      dpopJkt: context.dpopJkt,
      binding: tokenBinding(client, context.dpopJkt),
      origin: context.origin,
    };
    if (!client.grantTypes.includes(this.grantType)) {
      throw new UnauthorizedClientError('This client is not registered for the refresh_token grant');
    }
    // Before the rotation: a refused grant keeps its current token for its next try.
    this.limits.admitRefresh(presentedFamily);
    const issued = (this.mayRotateAtOnce(request) ? await this.rotate(client, request) : null) ?? (await this.afterNoRotation(client, request));
    this.limits.issued(request.family, issued.grant.userId);
    return this.issuer.respond(issued);
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
   * The single-use step: of parallel requests with one token, exactly one rotates it. The others
   * find it rotated and get null (then the reuse rules).
   */
  private async rotate(client: RegisteredClient, request: RefreshRequest): Promise<IssuedTokens | null> {
    const minted = this.issuer.mint(request.family, request.binding);
    const grant = await this.storage.rotateRefreshToken(
      {
        tokenHash: request.presentedHash,
        clientId: client.id,
        requested: request.requestedScopes && { scopes: request.requestedScopes, scope: formatScopes(request.requestedScopes) },
        addressTag: rotationAddressTag(request.presentedHash, request.address),
        dpopJkt: request.dpopJkt,
      },
      minted.stored,
      issuingRequest(request),
    );
    return grant && { minted, grant };
  }

  /** Nothing rotated: the token's committed state, checked in the order of §6, says what to answer. */
  private async afterNoRotation(client: RegisteredClient, request: RefreshRequest): Promise<IssuedTokens> {
    const stored = await this.storage.findRefreshToken(request.presentedHash);
    // §6: the server MUST "validate the refresh token" and check it was issued to this client.
    if (!stored || stored.clientId !== client.id) throw new UnmatchedGrantError(INVALID);
    if (stored.revokedAt || stored.grant.revokedAt) throw new InvalidGrantError(INVALID, 'revoked');
    // RFC 9449 §5: a bound refresh token is used only with a proof by its key. Checked before the
    // reuse rules: whoever presents it without the key rotated nothing and revokes nothing.
    if (stored.dpopJkt !== null && stored.dpopJkt !== request.dpopJkt) {
      throw new InvalidGrantError(
        'The refresh token is bound to a DPoP key: send a DPoP proof signed with that key',
        request.dpopJkt === null ? 'bound refresh token without a proof' : 'bound refresh token with another key',
      );
    }

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

    const now = this.clock.now();
    const decision = decideRefresh(stored, now, this.policy, this.fromRotatingAddress(stored, request));
    if (decision === 'grace') {
      // §6: the new refresh token keeps "identical" scope to the one it replaces. In the reuse
      // window, a sibling pair of the same grant: the successor issued first stays valid.
      const minted = this.issuer.mint(request.family, request.binding);
      const grant = await this.storage.issueInGrant(
        stored.grantId,
        { refresh: stored.scope, access: formatScopes(accessScopes) },
        minted.stored,
        issuingRequest(request),
      );
      if (grant) return { minted, grant };
      throw new InvalidGrantError(INVALID, 'grant revoked meanwhile');
    }
    if (decision === 'stale') {
      await this.staleSession(stored, now, request);
      throw new InvalidGrantError(INVALID, 'stale session: rotated out from this address, grant kept');
    }
    if (decision === 'reuse') {
      // RFC 9700 §4.14.2: when a rotated refresh token is presented again, the server
      // "cannot determine which party submitted the refresh token" and revokes the whole grant.
      // Its event is written in the revocation's transaction.
      const { grantId, clientId, grant } = stored;
      const reuse = refreshTokenReuseDetected({ grantId, clientId, userId: grant.userId, schoolId: grant.schoolId }, request.origin.address);
      await this.revoker.revokeGrant(grantId, 'refresh_token_reuse', reuse);
      throw new InvalidGrantError(INVALID, 'refresh token reuse');
    }
    // 'invalid' (expired), or 'rotate': current again by now, which only a race can produce;
    // the client may try again.
    throw new InvalidGrantError(INVALID, decision === 'rotate' ? 'not rotated' : 'expired or revoked');
  }

  private fromRotatingAddress(stored: RefreshTokenRow, request: RefreshRequest): boolean {
    const kept = stored.rotationAddressTag;
    return kept != null && kept === rotationAddressTag(request.presentedHash, request.address);
  }

  /** Refused without revoking: a warning, a count, and the time it took spent from the grant's budget. */
  private async staleSession(stored: RefreshTokenRow, now: Date, request: RefreshRequest): Promise<void> {
    const minutes = Math.round((now.getTime() - (stored.rotatedAt as Date).getTime()) / 60_000);
    this.logger.warn(
      `Stale session: a refresh token of grant ${stored.grantId} (client ${stored.clientId}) rotated out ${minutes} min ago was presented again from the address that rotated it; refused, grant kept`,
    );
    this.metrics.staleSession();
    await this.limits.presented(request.presentedFamily);
  }
}

function issuingRequest(request: RefreshRequest): IssuingRequest {
  return { grantType: REFRESH_TOKEN_GRANT, ...request.origin };
}
