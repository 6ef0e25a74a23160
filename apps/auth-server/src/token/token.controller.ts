import { Body, Controller, Header, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiTokenEndpoint } from '../openapi/api-endpoints';
import { TokenService } from './token.service';

@Controller()
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  /** RFC 6749 §5.1: "Cache-Control: no-store" and "Pragma: no-cache" on token responses. */
  @Post(OAUTH_PATHS.token)
  @ApiTokenEndpoint()
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @Header('pragma', 'no-cache')
  token(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Headers('authorization') authorization?: string,
    @Headers('dpop') dpop?: string | string[],
  ) {
    return this.tokens.exchange(body, authorization, request.ip, dpop);
  }
}
