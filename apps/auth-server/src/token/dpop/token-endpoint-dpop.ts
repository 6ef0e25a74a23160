import { hkdfSync } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { DpopNonces, DpopProofVerifier } from '@platform/dpop';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth-config';
import { UsedDpopProofs } from './used-dpop-proofs.repository';

/** A nonce is accepted in the step it was issued in and the next: 5 to 10 minutes. */
const NONCE_STEP_SECONDS = 300;

/**
 * DPoP at the token endpoint (RFC 9449 §5): checks the request's proof against the token endpoint's
 * public URL and answers the thumbprint of its key, the one the tokens are bound to.
 */
@Injectable()
export class TokenEndpointDpop {
  /**
   * The URL clients send token requests to (the discovery documents' token_endpoint), from the
   * configured issuer: never from the request's Host header, which whoever sends the request chooses.
   */
  private readonly tokenEndpointUrl: string;
  private readonly nonces: DpopNonces | undefined;
  private readonly verifier: DpopProofVerifier;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig, used: UsedDpopProofs) {
    this.tokenEndpointUrl = `${config.issuer}${OAUTH_PATHS.token}`;
    this.nonces = config.dpop.nonceSecret === undefined ? undefined : new DpopNonces(nonceKey(config.dpop.nonceSecret), NONCE_STEP_SECONDS);
    this.verifier = new DpopProofVerifier({ maxAgeSeconds: config.dpop.proofMaxAgeSeconds, replay: used, nonces: this.nonces });
  }

  /** The proof's key thumbprint (jkt); null without a DPoP header. Throws invalid_dpop_proof / use_dpop_nonce. */
  async proofKey(header: string | string[] | undefined): Promise<string | null> {
    if (header === undefined) return null;
    const proof = await this.verifier.verify({ proof: header, method: 'POST', url: this.tokenEndpointUrl, nonceRequired: this.nonces !== undefined });
    return proof.jkt;
  }
}

/** The nonces' HMAC key, derived from DPOP_NONCE_SECRET (HKDF-SHA256, RFC 5869) for this one use. */
function nonceKey(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'course-platform auth-server', 'dpop-nonce', 32));
}
