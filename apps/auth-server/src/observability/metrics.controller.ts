import { Controller, Get, Header } from '@nestjs/common';
import { METRICS_CONTENT_TYPE } from '@platform/metrics';
import { OPERATIONAL_PATHS } from '@platform/route-table';
import { AuthMetrics } from './auth-metrics';

/** Scraped on the service's own port; the gateway answers 404 for /metrics on the public origin. */
@Controller()
export class MetricsController {
  constructor(private readonly metrics: AuthMetrics) {}

  @Get(OPERATIONAL_PATHS.metrics)
  @Header('content-type', METRICS_CONTENT_TYPE)
  @Header('cache-control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.render();
  }
}
