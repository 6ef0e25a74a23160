import { Body, Controller, Header, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiRevocationEndpoint } from '../openapi/api-endpoints';
import { RevocationService } from './revocation.service';

@Controller()
export class RevocationController {
  constructor(private readonly revocation: RevocationService) {}

  /** RFC 7009 §2.2: 200 whether or not the token was known. */
  @Post(OAUTH_PATHS.revocation)
  @ApiRevocationEndpoint()
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  async revoke(@Body() body: unknown, @Req() request: FastifyRequest, @Headers('authorization') authorization?: string): Promise<Record<string, never>> {
    await this.revocation.revoke(body, authorization, request.ip);
    return {};
  }
}
