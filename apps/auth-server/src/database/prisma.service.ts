import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { PrismaClient } from '../generated/prisma/client';

/**
 * The Prisma client on the pg driver adapter (no Rust engine). The embedded PostgreSQL
 * serves one session at a time, so its pool is 1 (see AuthConfig.database.poolSize).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    super({
      adapter: new PrismaPg({
        connectionString: config.database.url,
        max: config.database.poolSize,
        connectionTimeoutMillis: 5_000,
      }),
    });
  }

  /**
   * Not onModuleDestroy: Nest runs that before it closes the HTTP server, while requests are
   * still in flight. Shutdown hooks run after the server has finished them.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}
