import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport';
import { dpopTokenOf } from './bearer-header';
import { notePresentedScheme } from './presented-scheme';
import type { TokenPrincipal } from './principal';
import { type ProofCarryingRequest, TokenAuthenticator } from './token-authenticator';

export const DPOP_STRATEGY = 'platform-dpop';

type Verify = (request: ProofCarryingRequest, token: string, done: (error: unknown, principal?: TokenPrincipal) => void) => void;

/**
 * The passport strategy of the DPoP scheme (RFC 9449 §7.1: `Authorization: DPoP <token>`, the
 * scheme case-insensitive), which passport-http-bearer does not read: another scheme passes to
 * the next strategy (fail without a challenge); a malformed DPoP header is invalid_request.
 */
class DpopSchemeStrategy extends Strategy {
  constructor(private readonly verify: Verify) {
    super();
  }

  override authenticate(request: ProofCarryingRequest): void {
    let token: string | undefined;
    try {
      token = dpopTokenOf(request.headers['authorization']);
    } catch (error) {
      notePresentedScheme(request, 'DPoP');
      return this.error(error);
    }
    if (token === undefined) return this.fail();
    notePresentedScheme(request, 'DPoP');
    this.verify(request, token, (error, principal) => (error || principal === undefined ? this.error(error) : this.success(principal)));
  }
}

/** A DPoP-scheme request: its proof, its token, and the binding between them (TokenAuthenticator.dpop). */
@Injectable()
export class DpopStrategy extends PassportStrategy(DpopSchemeStrategy, DPOP_STRATEGY) {
  constructor(private readonly authenticator: TokenAuthenticator) {
    super();
  }

  validate(request: ProofCarryingRequest, token: string): Promise<TokenPrincipal> {
    return this.authenticator.dpop(token, request);
  }
}
