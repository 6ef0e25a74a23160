import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { HealthIndicatorFunction } from '@nestjs/terminus';
import { ReadinessProbes, RedisPing } from '@platform/health';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { PrismaService } from '../database/prisma.service';

/**
 * Ready means able to serve: the database answers (nothing is served without it), and Redis,
 * when configured, has answered at least once. After that a Redis outage does not make the
 * replica unready: every replica shares that Redis, and they all run without it, degraded
 * (rate limits and the login backoff counted per process, revocations not published; the
 * resource servers then introspect every token), rather than all leave rotation together.
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
      ...(redis ? [() => this.probes.checkDegradable('redis', () => redis.ping(), this.timeoutMs, () => redis.reachedOnce())] : []),
    ];
  }
}
