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
  /**
   * Statements go under their names, prepared once per connection (PostgreSQL then keeps the
   * plan), except on the embedded PostgreSQL (a pool of one): its one session outlives the
   * pool's connections, and a new connection would prepare a name the session already holds.
   */
  private readonly namedStatements: boolean;

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
    this.namedStatements = config.database.poolSize > 1;
  }

  /**
   * One parameterized statement on the shared pool: the rows as pg returns them. `name` must
   * name this text alone for the life of the process (pg refuses a second text under a name).
   */
  async rows<Row extends QueryResultRow>(name: string, text: string, values: readonly unknown[]): Promise<Row[]> {
    return (await this.pool.query<Row>({ name: this.namedStatements ? name : undefined, text, values: values as unknown[] })).rows;
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
