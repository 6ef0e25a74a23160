import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type QueryResultRow } from 'pg';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import { PrismaClient } from '../generated/prisma/client';

/**
 * The Prisma client on the pg driver adapter (no Rust engine), over a pg pool this service
 * owns. The embedded PostgreSQL serves one session at a time, so its pool is 1 (see
 * ResourceConfig.database.poolSize). Hot reads run their one statement on the same pool
 * (`rows`), so they share its connections and its size with Prisma; Prisma keeps the schema,
 * the migrations and every write.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  private readonly pool: Pool;

  constructor(@Inject(RESOURCE_CONFIG) config: ResourceConfig) {
    const pool = new Pool({
      connectionString: config.database.url,
      max: config.database.poolSize,
      connectionTimeoutMillis: 5_000,
    });
    // An idle connection that breaks (PostgreSQL restarted) is dropped by the pool; the next
    // query reconnects or fails with a connection error (503). Without a listener it would crash the process.
    pool.on('error', () => undefined);
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
  }

  /** One parameterized statement on the shared pool: the rows as pg returns them. */
  async rows<Row extends QueryResultRow>(text: string, values: readonly unknown[]): Promise<Row[]> {
    return (await this.pool.query<Row>(text, values as unknown[])).rows;
  }

  /**
   * Not onModuleDestroy: Nest runs that before it closes the HTTP server, while requests are
   * still in flight. Shutdown hooks run after the server has finished them.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
    if (!this.pool.ended) await this.pool.end();
  }
}
