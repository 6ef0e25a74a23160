import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { HealthIndicatorFunction } from '@nestjs/terminus';
import { httpProbe, ReadinessProbes, RedisPing, rememberingReach } from '@platform/health';
import { OPERATIONAL_PATHS } from '@platform/route-table';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import { PrismaService } from '../database/prisma.service';

/**
 * Ready means able to serve: the database answers (nothing is served without it); Redis, when
 * configured, and the authorization server's liveness have each answered at least once (a
 * wrong URL stalls a rollout). After that an outage of either does not make the replica
 * unready: every replica shares them and runs without them, degraded (without Redis every
 * token is introspected and rate limits count per process; without the authorization server
 * cached tokens and anonymous reads still work), rather than all leave rotation together. The
 * authorization server's liveness, not its readiness: not its database either.
 */
@Injectable()
export class Readiness implements OnModuleInit, OnApplicationShutdown {
  private readonly redis?: RedisPing;
  private readonly timeoutMs: number;
  private readonly authServer: ReturnType<typeof rememberingReach>;

  constructor(
    @Inject(RESOURCE_CONFIG) config: ResourceConfig,
    private readonly prisma: PrismaService,
    private readonly probes: ReadinessProbes,
  ) {
    this.timeoutMs = config.operations.healthCheckTimeoutMs;
    this.redis = config.redisUrl ? new RedisPing(config.redisUrl, this.timeoutMs) : undefined;
    const authServerHealth = `${config.authServerUrl}${OPERATIONAL_PATHS.liveness}`;
    this.authServer = rememberingReach((signal) => httpProbe(authServerHealth, signal));
  }

  onModuleInit(): void {
    this.redis?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.close();
  }

  checks(): HealthIndicatorFunction[] {
    const redis = this.redis;
    return [
      () => this.probes.check('database', () => this.prisma.$queryRaw`SELECT 1`, this.timeoutMs),
      ...(redis ? [() => this.probes.checkDegradable('redis', () => redis.ping(), this.timeoutMs, () => redis.reachedOnce())] : []),
      () => this.probes.checkDegradable('authorization_server', this.authServer.probe, this.timeoutMs, this.authServer.reachedOnce),
    ];
  }
}
