import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Pool } from 'pg';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { PrismaClient } from '../generated/prisma/client';
import { createPgPool } from './pg-pool';

/**
 * The Prisma client on the pg driver adapter (no Rust engine), over the process's one pg pool
 * (`pool`, also provided as PG_POOL for SQL of our own on hot paths). The embedded PostgreSQL
 * serves one session at a time, so its pool is 1 (see AuthConfig.database.poolSize).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  readonly pool: Pool;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    const pool = createPgPool(config.database);
    // disposeExternalPool: $disconnect() ends the pool, as it did when the adapter owned it.
    super({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
    this.pool = pool;
  }

  /**
   * Not onModuleDestroy: Nest runs that before it closes the HTTP server, while requests are
   * still in flight. Shutdown hooks run after the server has finished them.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
    // Prisma ends the pool only if it ever connected; raw SQL may have used it alone.
    if (!this.pool.ended) await this.pool.end();
  }
}
