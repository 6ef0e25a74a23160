import { Controller } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { HealthCheckService } from '@nestjs/terminus';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from '@platform/bearer-auth';
import { ProbesController } from '@platform/health';
import { Readiness } from './readiness';

/** Probes carry no token: public to the bearer guard, and not part of the API's documents. */
@ApiExcludeController()
@PublicRoute()
@Controller()
export class HealthController extends ProbesController {
  constructor(health: HealthCheckService, readiness: Readiness, adapterHost: HttpAdapterHost) {
    super(health, readiness, adapterHost);
  }
}
