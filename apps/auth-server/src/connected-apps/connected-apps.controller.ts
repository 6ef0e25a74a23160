import { Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthorizeExceptionFilter } from '../authorize/authorize-exception.filter';
import { paramsFromBody, paramsFromUrl } from '../pages/request-params';
import { sendHtml, sendRedirect } from '../pages/html-response';
import { browserOf } from '../pages/browser-request';
import { CONNECTED_APPS_DISCONNECT, CONNECTED_APPS_LOGIN, CONNECTED_APPS_PATH, CONNECTED_APPS_SIGN_OUT } from '../pages/page-paths';
import { ConnectedAppsService, type PageOutcome } from './connected-apps.service';

/** Browser-facing, like the sign-in pages: HTML and 303 redirects; errors as an HTML page. */
@Controller()
@UseFilters(AuthorizeExceptionFilter)
export class ConnectedAppsController {
  constructor(private readonly apps: ConnectedAppsService) {}

  @Get(CONNECTED_APPS_PATH)
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.apps.show(paramsFromUrl(request.url), browserOf(request)));
  }

  @Post(CONNECTED_APPS_LOGIN)
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.apps.login(paramsFromBody(request.body), browserOf(request)));
  }

  @Post(CONNECTED_APPS_DISCONNECT)
  async disconnect(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.apps.disconnect(paramsFromBody(request.body), browserOf(request)));
  }

  @Post(CONNECTED_APPS_SIGN_OUT)
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.apps.signOut(paramsFromBody(request.body), browserOf(request)));
  }
}

function send(reply: FastifyReply, outcome: PageOutcome): void {
  // Fastify keeps several Set-Cookie headers apart.
  for (const value of outcome.setCookies) reply.header('set-cookie', value);
  if (outcome.kind === 'redirect') sendRedirect(reply, outcome.location);
  else sendHtml(reply, outcome.status, outcome.html, outcome.imageSources);
}
