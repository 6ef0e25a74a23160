import { Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendHtml, sendRedirect } from '../pages/html-response';
import { AuthorizeExceptionFilter } from './authorize-exception.filter';
import { type AuthorizeOutcome, AuthorizeService, CONSENT_ACTION, LOGIN_ACTION } from './authorize.service';
import { paramsFromBody, paramsFromUrl } from './request-params';

/** Browser-facing: answers with HTML pages and 303 redirects, never JSON. */
@Controller()
@UseFilters(AuthorizeExceptionFilter)
export class AuthorizeController {
  constructor(private readonly flow: AuthorizeService) {}

  @Get(OAUTH_PATHS.authorization)
  async authorize(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.flow.authorize(paramsFromUrl(request.url), { request, reply }));
  }

  /** OpenID Connect Core §3.1.2.1: the authorization endpoint MUST support POST as well. */
  @Post(OAUTH_PATHS.authorization)
  async authorizeByPost(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.flow.authorize(paramsFromBody(request.body), { request, reply }));
  }

  @Post(LOGIN_ACTION)
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.flow.login(paramsFromBody(request.body), { request, reply }));
  }

  @Post(CONSENT_ACTION)
  async consent(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.flow.consent(paramsFromBody(request.body), { request, reply }));
  }
}

function send(reply: FastifyReply, outcome: AuthorizeOutcome): void {
  if (outcome.kind === 'redirect') sendRedirect(reply, outcome.location);
  else sendHtml(reply, outcome.status, outcome.html, outcome.imageSources, outcome.formTargets);
}
