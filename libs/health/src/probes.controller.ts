import { Get, Header, ServiceUnavailableException, UseFilters } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { type HealthCheckService, type HealthIndicatorFunction } from '@nestjs/terminus';
import type { FastifyInstance } from 'fastify';
import { isClosing } from '@platform/lifecycle';
import { HealthReportFilter } from './health';
import { OPERATIONAL_PATHS } from '@platform/route-table';

/** A service's readiness checks (its database, Redis, the peers it cannot serve without). */
export interface ReadinessChecks {
  checks(): HealthIndicatorFunction[];
}

/** Readiness while shutdown runs, in terminus' shape: no dependency is asked. */
const SHUTTING_DOWN = { shutdown: { status: 'down', message: 'shutting down' } };

/**
 * /healthz and /readyz, the same in every service: a service's controller extends it, adds what
 * its router needs (the resource server: public to the bearer guard, out of the API documents)
 * and passes its own readiness checks.
 */
@UseFilters(HealthReportFilter)
export abstract class ProbesController {
  protected constructor(
    private readonly health: HealthCheckService,
    private readonly readiness: ReadinessChecks,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Liveness: the process answers. Nothing else, so an outage elsewhere never restarts it. */
  @Get(OPERATIONAL_PATHS.liveness)
  @Header('cache-control', 'no-store')
  liveness() {
    return this.health.check([]);
  }

  /**
   * Readiness: 200 when every dependency answers in time, 503 with the report otherwise, and
   * 503 from the moment shutdown begins (the orchestrator stops sending while it still answers).
   */
  @Get(OPERATIONAL_PATHS.readiness)
  @Header('cache-control', 'no-store')
  ready() {
    if (isClosing(this.adapterHost.httpAdapter.getInstance<FastifyInstance>())) {
      throw new ServiceUnavailableException({ status: 'error', info: {}, error: SHUTTING_DOWN, details: SHUTTING_DOWN });
    }
    return this.health.check(this.readiness.checks());
  }
}
