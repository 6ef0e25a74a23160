import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from '@platform/bearer-auth';
import { METRICS_CONTENT_TYPE } from '@platform/metrics';
import { OPERATIONAL_PATHS } from '@platform/route-table';
import { ResourceMetrics } from './resource-metrics';

/**
 * Scraped on the service's own port; the gateway answers 404 for /metrics on the public
 * origin. Public to the bearer guard: Prometheus has no token.
 */
@ApiExcludeController()
@PublicRoute()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: ResourceMetrics) {}

  @Get(OPERATIONAL_PATHS.metrics)
  @Header('content-type', METRICS_CONTENT_TYPE)
  @Header('cache-control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.render();
  }
}
