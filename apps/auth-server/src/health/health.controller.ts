import { Controller, Get, Header, UseFilters } from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import { HealthReportFilter, OPERATIONAL_PATHS } from '@platform/observability';
import { Readiness } from './readiness';

@Controller()
@UseFilters(HealthReportFilter)
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly readiness: Readiness,
  ) {}

  /** Liveness: the process answers. Nothing else, so an outage elsewhere never restarts it. */
  @Get(OPERATIONAL_PATHS.liveness)
  @Header('cache-control', 'no-store')
  liveness() {
    return this.health.check([]);
  }

  /** Readiness: 200 when every dependency answers in time, 503 with the report otherwise. */
  @Get(OPERATIONAL_PATHS.readiness)
  @Header('cache-control', 'no-store')
  ready() {
    return this.health.check(this.readiness.checks());
  }
}
