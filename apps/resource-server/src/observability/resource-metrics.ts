import type { BearerAuthMetrics, IntrospectionOutcome } from '@platform/bearer-auth';
import { ServiceMetrics } from '@platform/metrics';
import { Counter } from 'prom-client';

const LAYERS = ['memory', 'redis'] as const;
const RESULTS = ['hit', 'miss'] as const;
const OUTCOMES: IntrospectionOutcome[] = ['active', 'inactive', 'error'];

/**
 * The resource server's registry: HTTP and process metrics, and how bearer tokens were
 * validated (libs/bearer-auth reports through BearerAuthMetrics).
 */
export class ResourceMetrics extends ServiceMetrics implements BearerAuthMetrics {
  private readonly cacheLookups = new Counter({
    name: 'introspection_cache_total',
    help: 'Lookups of a token’s introspection answer, by cache layer (memory: in-process LRU; redis: shared) and result',
    labelNames: ['layer', 'result'] as const,
    registers: [this.registry],
  });

  private readonly introspections = new Counter({
    name: 'introspection_requests_total',
    help: 'Calls to the authorization server’s introspection endpoint, by outcome (active, inactive, error: no usable answer)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    super();
    // Every series exists from the start, so ratios and alerts see 0 rather than nothing.
    for (const layer of LAYERS) for (const result of RESULTS) this.cacheLookups.inc({ layer, result }, 0);
    for (const outcome of OUTCOMES) this.introspections.inc({ outcome }, 0);
  }

  cacheLookup(layer: (typeof LAYERS)[number], result: (typeof RESULTS)[number]): void {
    this.cacheLookups.inc({ layer, result });
  }

  introspection(outcome: IntrospectionOutcome): void {
    this.introspections.inc({ outcome });
  }
}
