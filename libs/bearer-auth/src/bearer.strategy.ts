import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { InvalidRequestError } from '@platform/oauth-errors';
import { Strategy } from 'passport-http-bearer';
import { isB64Token, MALFORMED_BEARER_HEADER } from './bearer-header';
import { notePresentedScheme } from './presented-scheme';
import type { TokenPrincipal } from './principal';
import { TokenAuthenticator } from './token-authenticator';

export const BEARER_STRATEGY = 'platform-bearer';

/**
 * passport-http-bearer reads the RFC 6750 §2.1 header (`Bearer <token>`, the scheme
 * case-insensitive); validation is introspection through the cache, and a DPoP-bound token is
 * refused (TokenAuthenticator.bearer). Errors thrown here (invalid_request, invalid_token, 503)
 * reach the guard unchanged.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER_STRATEGY) {
  constructor(private readonly authenticator: TokenAuthenticator) {
    super({ passReqToCallback: true });
  }

  validate(request: object, token: string): Promise<TokenPrincipal> {
    notePresentedScheme(request, 'Bearer');
    // RFC 6750 §2.1: the credentials are a b64token; passport-http-bearer takes any text.
    if (!isB64Token(token)) throw new InvalidRequestError(MALFORMED_BEARER_HEADER);
    return this.authenticator.bearer(token);
  }
}
