import { Controller, Get, Header } from '@nestjs/common';
import { SigningKeysService } from './signing-keys.service';

export const JWKS_PATH = '/.well-known/jwks.json';

@Controller()
export class JwksController {
  constructor(private readonly keys: SigningKeysService) {}

  @Get(JWKS_PATH)
  @Header('content-type', 'application/jwk-set+json')
  @Header('cache-control', 'public, max-age=300')
  jwks() {
    return this.keys.jwks();
  }
}
