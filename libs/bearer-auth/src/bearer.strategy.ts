import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { TokenPrincipal } from './principal';
import { TokenValidator } from './token-validator';

export const BEARER_STRATEGY = 'platform-bearer';

/**
 * passport-http-bearer reads the RFC 6750 §2.1 header; validation is introspection through
 * the cache. Errors thrown here (invalid_token, 503) reach the guard unchanged.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER_STRATEGY) {
  constructor(private readonly validator: TokenValidator) {
    super();
  }

  validate(token: string): Promise<TokenPrincipal> {
    return this.validator.validate(token);
  }
}
