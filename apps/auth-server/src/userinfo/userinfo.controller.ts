import { Controller, Get, Header, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiUserInfoEndpoint } from '../openapi/api-endpoints';
import { UserInfoService } from './userinfo.service';

@Controller()
export class UserInfoController {
  constructor(private readonly userinfo: UserInfoService) {}

  @Get(OAUTH_PATHS.userinfo)
  @ApiUserInfoEndpoint('oauth_userinfo')
  @Header('cache-control', 'no-store')
  get(@Req() request: FastifyRequest, @Headers('authorization') authorization?: string, @Headers('dpop') dpop?: string | string[]) {
    return this.userinfo.userInfo({ method: request.method, authorization, dpop });
  }

  /**
   * OpenID Connect Core §5.3.1: "The UserInfo Endpoint MUST support the use of the HTTP GET and
   * HTTP POST methods"; §5.3.2: the answer is 200 OK on both (Nest's POST default would be 201).
   */
  @Post(OAUTH_PATHS.userinfo)
  @ApiUserInfoEndpoint('oauth_userinfo_post')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  post(@Req() request: FastifyRequest, @Headers('authorization') authorization?: string, @Headers('dpop') dpop?: string | string[]) {
    return this.userinfo.userInfo({ method: request.method, authorization, dpop });
  }
}
