import { Controller, Get, Header } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { ApiJwksEndpoint } from '../openapi/api-endpoints';
import { JWKS_MAX_AGE_SECONDS, SigningKeysService } from './signing-keys.service';

@Controller()
export class JwksController {
  constructor(private readonly keys: SigningKeysService) {}

  @Get(OAUTH_PATHS.jwks)
  @ApiJwksEndpoint()
  @Header('content-type', 'application/jwk-set+json')
  @Header('cache-control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`)
  jwks() {
    return this.keys.jwks();
  }
}
