import { Body, Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiRegistrationEndpoint } from '../openapi/api-endpoints';
import { RegistrationService } from './registration.service';

@Controller()
export class RegistrationController {
  constructor(private readonly registration: RegistrationService) {}

  /** RFC 7591 §3.2.1: 201 Created with the client information (the secret is shown only here). */
  @Post(OAUTH_PATHS.registration)
  @ApiRegistrationEndpoint()
  @HttpCode(201)
  @Header('cache-control', 'no-store')
  @Header('pragma', 'no-cache')
  register(@Body() body: unknown, @Req() request: FastifyRequest) {
    return this.registration.register(body, request.ip);
  }
}
