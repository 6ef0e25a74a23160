import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { HealthIndicatorFunction } from '@nestjs/terminus';
import { httpProbe, OPERATIONAL_PATHS, ReadinessProbes, RedisPing } from '@platform/observability';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import { PrismaService } from '../database/prisma.service';

/**
 * Ready means able to serve every endpoint: the database answers, Redis does when configured
 * (the shared introspection cache), and the authorization server is alive (without it no
 * uncached token can be checked). The authorization server's liveness, not its readiness: a
 * resource server should not go out of rotation for the auth-server's database.
 */
@Injectable()
export class Readiness implements OnModuleInit, OnApplicationShutdown {
  private readonly redis?: RedisPing;
  private readonly timeoutMs: number;
  private readonly authServerHealth: string;

  constructor(
    @Inject(RESOURCE_CONFIG) config: ResourceConfig,
    private readonly prisma: PrismaService,
    private readonly probes: ReadinessProbes,
  ) {
    this.timeoutMs = config.operations.healthCheckTimeoutMs;
    this.redis = config.redisUrl ? new RedisPing(config.redisUrl, this.timeoutMs) : undefined;
    this.authServerHealth = `${config.authServerUrl}${OPERATIONAL_PATHS.liveness}`;
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
      ...(redis ? [() => this.probes.check('redis', () => redis.ping(), this.timeoutMs)] : []),
      () => this.probes.check('authorization_server', (signal) => httpProbe(this.authServerHealth, signal), this.timeoutMs),
    ];
  }
}
