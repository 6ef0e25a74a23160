import { Inject, Injectable } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { DpopProofVerifier, InvalidDpopProofError } from '@platform/dpop';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { UsedDpopProofs } from '../token/dpop/used-dpop-proofs.repository';

/**
 * DPoP at the userinfo endpoint, a protected resource of this server (RFC 9449 §7): the proof is
 * checked against the endpoint's public URL and the access token, its jti single use on every
 * replica (used_dpop_proofs, as at the token endpoint).
 */
@Injectable()
export class UserInfoDpop {
  /** The userinfo_endpoint of the discovery documents, from the configured issuer, never the Host header. */
  private readonly userInfoUrl: string;
  private readonly verifier: DpopProofVerifier;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig, used: UsedDpopProofs) {
    this.userInfoUrl = `${config.issuer}${OAUTH_PATHS.userinfo}`;
    this.verifier = new DpopProofVerifier({ maxAgeSeconds: config.dpop.proofMaxAgeSeconds, replay: used });
  }

  /**
   * The thumbprint of the key of the request's proof for this token. Throws invalid_dpop_proof,
   * 401 here: RFC 9449 §7.1 answers a resource request's bad proof as an authentication failure.
   */
  async proofKey(proof: string | string[] | undefined, method: string, accessToken: string): Promise<string> {
    try {
      // §7: the resource server MUST check the proof per §4.3, with ath the hash of this token.
      const verified = await this.verifier.verify({ proof, method, url: this.userInfoUrl, accessToken });
      return verified.jkt;
    } catch (error) {
      if (error instanceof InvalidDpopProofError) throw error.withStatus(401);
      throw error;
    }
  }
}
