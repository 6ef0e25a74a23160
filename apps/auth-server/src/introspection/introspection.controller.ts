import { Body, Controller, Header, Headers, HttpCode, Post } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { ApiIntrospectionEndpoint } from '../openapi/api-endpoints';
import { IntrospectionService } from './introspection.service';

@Controller()
export class IntrospectionController {
  constructor(private readonly introspection: IntrospectionService) {}

  @Post(OAUTH_PATHS.introspection)
  @ApiIntrospectionEndpoint()
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  introspect(@Body() body: unknown, @Headers('authorization') authorization?: string) {
    return this.introspection.introspect(body, authorization);
  }
}
