import { Controller } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { HealthCheckService } from '@nestjs/terminus';
import { ProbesController } from '@platform/health';
import { Readiness } from './readiness';

@Controller()
export class HealthController extends ProbesController {
  constructor(health: HealthCheckService, readiness: Readiness, adapterHost: HttpAdapterHost) {
    super(health, readiness, adapterHost);
  }
}
