import { Controller, Get, Header, Headers, Post } from '@nestjs/common';
import { OAUTH_PATHS } from '../discovery/endpoints';
import { UserInfoService } from './userinfo.service';

@Controller()
export class UserInfoController {
  constructor(private readonly userinfo: UserInfoService) {}

  @Get(OAUTH_PATHS.userinfo)
  @Header('cache-control', 'no-store')
  get(@Headers('authorization') authorization?: string) {
    return this.userinfo.userInfo(authorization);
  }

  /** OpenID Connect Core §5.3.1: "The UserInfo Endpoint MUST support the use of the HTTP GET and HTTP POST methods". */
  @Post(OAUTH_PATHS.userinfo)
  @Header('cache-control', 'no-store')
  post(@Headers('authorization') authorization?: string) {
    return this.userinfo.userInfo(authorization);
  }
}
