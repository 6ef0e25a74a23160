import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { HealthIndicatorFunction } from '@nestjs/terminus';
import { ReadinessProbes, RedisPing } from '@platform/observability';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { PrismaService } from '../database/prisma.service';

/**
 * Ready means able to serve every endpoint: the database answers and, when configured,
 * Redis does (without it revocations would not reach the resource servers' caches).
 */
@Injectable()
export class Readiness implements OnModuleInit, OnApplicationShutdown {
  private readonly redis?: RedisPing;
  private readonly timeoutMs: number;

  constructor(
    @Inject(AUTH_CONFIG) config: AuthConfig,
    private readonly prisma: PrismaService,
    private readonly probes: ReadinessProbes,
  ) {
    this.timeoutMs = config.operations.healthCheckTimeoutMs;
    this.redis = config.redisUrl ? new RedisPing(config.redisUrl, this.timeoutMs) : undefined;
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
    ];
  }
}
