import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { isOperationalPath } from '@platform/route-table';

/** The Prometheus text exposition format, version 0.0.4. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** The route label of requests no route matched (404s): one series, whatever was asked. */
export const UNMATCHED_ROUTE = '(unmatched)';

const HTTP_LABELS = ['method', 'route', 'status'] as const;

/**
 * A service's Prometheus registry (its own, not prom-client's global one, so two services
 * in one process never share series): the default process and Node.js metrics, and the
 * HTTP metrics. Services add their own counters to `registry`.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  /** Its `_count` series is the number of requests answered, by the same labels. */
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status (probes and /metrics excluded); _count: requests answered',
    labelNames: HTTP_LABELS,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.duration.observe({ method, route, status: String(status) }, seconds);
  }

  /** The Prometheus text exposition format. */
  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * Counts every answered request by its route pattern (`/api/v1/students/:studentId`, never
 * the raw URL: the label set stays bounded whatever callers send). Call before app.init().
 */
export function instrumentHttp(fastify: FastifyInstance, metrics: ServiceMetrics): void {
  // A callback hook, not an async one: no promise per request.
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url || UNMATCHED_ROUTE;
    if (!isOperationalPath(route)) metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
