import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DpopProofVerifier, type DpopReplayGuard, InvalidDpopProofError, UseDpopNonceError } from '@platform/dpop';
import { InvalidTokenError } from '@platform/oauth-errors';
import type { PresentedToken } from './bearer-header';
import type { ChallengeContext } from './challenges';
import { InProcessDpopReplayGuard, RedisDpopReplayGuard } from './dpop-replay-guards';
import { BEARER_AUTH_OPTIONS, type ResolvedBearerAuthOptions } from './options';
import type { TokenPrincipal } from './principal';
import { TokenValidator } from './token-validator';

/** What a DPoP proof is checked against: the request as this server received it. */
export interface ProofCarryingRequest {
  readonly method: string;
  /** The request target as received (path and query): the gateway forwards the client's path unchanged. */
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/**
 * The rules of the two schemes a token is presented with, in one place for the guard's
 * strategies and /mcp:
 * - Bearer (RFC 6750): the token is validated (introspection through the cache) and must not
 *   be DPoP-bound (RFC 9449 §7.2).
 * - DPoP (RFC 9449 §7): the request's proof is checked (libs/dpop: one `DPoP` header, typ, an
 *   asymmetric alg, signature, htm, htu, iat window, ath, single-use jti, the nonce when asked
 *   for), the token validated, and the token's `cnf.jkt` must be the proof key's thumbprint.
 */
@Injectable()
export class TokenAuthenticator implements OnModuleInit, OnModuleDestroy {
  /** Names the resource's metadata and the DPoP algorithms in challenges. */
  readonly challengeContext: ChallengeContext;
  private readonly proofs: DpopProofVerifier;
  private readonly replay: DpopReplayGuard & { started?(): Promise<void>; stop?(): Promise<void> };
  private readonly nonceRequired: boolean;

  constructor(
    @Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions,
    private readonly tokens: TokenValidator,
  ) {
    const { dpop } = options;
    this.challengeContext = Object.freeze({ resourceMetadataUrl: options.resourceMetadataUrl, dpopAlgorithms: dpop.algorithms });
    const inProcess = new InProcessDpopReplayGuard(dpop.inProcessReplayEntries);
    this.replay = options.redisUrl ? new RedisDpopReplayGuard(options.redisUrl, options.redisTimeoutMs, inProcess) : inProcess;
    this.nonceRequired = dpop.nonces !== undefined;
    this.proofs = new DpopProofVerifier({ algorithms: dpop.algorithms, maxAgeSeconds: dpop.maxAgeSeconds, replay: this.replay, nonces: dpop.nonces });
  }

  /** The start waits for Redis's first answer (a second at most: RedisConnection's connect timeout). */
  async onModuleInit(): Promise<void> {
    await this.replay.started?.();
  }

  async onModuleDestroy(): Promise<void> {
    await this.replay.stop?.();
  }

  /**
   * The principal of a token presented with either scheme; throws InvalidTokenError,
   * InvalidDpopProofError, UseDpopNonceError (both 401 here) or what TokenValidator throws.
   * `audiences`: as TokenValidator.validate.
   */
  authenticate(presented: PresentedToken, request: ProofCarryingRequest, audiences?: readonly string[]): Promise<TokenPrincipal> {
    return presented.scheme === 'DPoP' ? this.dpop(presented.token, request, audiences) : this.bearer(presented.token, audiences);
  }

  async bearer(token: string, audiences?: readonly string[]): Promise<TokenPrincipal> {
    const principal = await this.tokens.validate(token, audiences);
    // RFC 9449 §7.2: a resource server supporting both schemes "MUST reject a DPoP-bound access
    // token received as a bearer token": whoever copied it would need no key.
    if (principal.jkt !== undefined) {
      throw new InvalidTokenError('This access token is bound to a DPoP key: present it with the DPoP scheme and a proof');
    }
    return principal;
  }

  async dpop(token: string, request: ProofCarryingRequest, audiences?: readonly string[]): Promise<TokenPrincipal> {
    let jkt: string;
    try {
      ({ jkt } = await this.proofs.verify({
        proof: request.headers['dpop'],
        method: request.method,
        url: this.htuOf(request.url),
        accessToken: token,
        nonceRequired: this.nonceRequired,
      }));
    } catch (error) {
      // RFC 9449 §7.1 and §9: at a resource server both are 401 with a DPoP challenge.
      if (error instanceof InvalidDpopProofError || error instanceof UseDpopNonceError) throw error.withStatus(401);
      throw error;
    }
    const principal = await this.tokens.validate(token, audiences);
    // RFC 9449 §7: the resource server MUST "confirm that the public key to which the access
    // token is bound matches the public key from the DPoP proof". A token bound to no key cannot
    // be confirmed: refused rather than accepted as if it were bound (the client believes it is).
    if (principal.jkt === undefined) {
      throw new InvalidTokenError('This access token is not bound to a DPoP key: present it with the Bearer scheme');
    }
    if (principal.jkt !== jkt) throw new InvalidTokenError('Invalid DPoP key binding', 'the proof is signed by another key than the token is bound to');
    return principal;
  }

  /**
   * RFC 9449 §4.3: htu is "the HTTP URI value for the HTTP request", as the client sent it: the
   * public origin (the gateway's, never the Host header) and the request's path, query dropped.
   */
  private htuOf(target: string): string {
    const query = target.indexOf('?');
    return this.options.publicBaseUrl + (query === -1 ? target : target.slice(0, query));
  }
}
