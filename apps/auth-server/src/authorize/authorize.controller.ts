import { Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiAuthorizeByPostEndpoint, ApiAuthorizeEndpoint } from '../openapi/api-endpoints';
import { browserOf } from '../pages/browser-request';
import { CONSENT_ACTION, LOGIN_ACTION } from '../pages/page-paths';
import { paramsFromBody, paramsFromUrl } from '../pages/request-params';
import { writeAuthorizeResponse } from './authorize-response';
import { AuthorizeExceptionFilter } from './authorize-exception.filter';
import { AuthorizeService } from './authorize.service';

/**
 * Browser-facing: answers with HTML pages and 303 redirects, never JSON. Each handler reads
 * plain values from the request, lets AuthorizeService decide, and writes its outcome; a
 * thrown error takes the same writer through AuthorizeExceptionFilter.
 */
@Controller()
@UseFilters(AuthorizeExceptionFilter)
export class AuthorizeController {
  constructor(private readonly flow: AuthorizeService) {}

  @Get(OAUTH_PATHS.authorization)
  @ApiAuthorizeEndpoint()
  async authorize(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    writeAuthorizeResponse(reply, await this.flow.authorize(paramsFromUrl(request.url), browserOf(request)));
  }

  /** OpenID Connect Core §3.1.2.1: the authorization endpoint MUST support POST as well. */
  @Post(OAUTH_PATHS.authorization)
  @ApiAuthorizeByPostEndpoint()
  async authorizeByPost(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    writeAuthorizeResponse(reply, await this.flow.authorize(paramsFromBody(request.body), browserOf(request)));
  }

  @Post(LOGIN_ACTION)
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    writeAuthorizeResponse(reply, await this.flow.login(paramsFromBody(request.body), browserOf(request)));
  }

  @Post(CONSENT_ACTION)
  async consent(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    writeAuthorizeResponse(reply, await this.flow.consent(paramsFromBody(request.body), browserOf(request)));
  }
}
