import { Controller } from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import { ProbesController } from '@platform/observability';
import { Readiness } from './readiness';

@Controller()
export class HealthController extends ProbesController {
  constructor(health: HealthCheckService, readiness: Readiness) {
    super(health, readiness);
  }
}
