import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase } from '../../../../tools/test-support/test-database';
import { createResourceServer } from '../../src/bootstrap';
import { loadResourceConfig, type ResourceConfig } from '../../src/config/resource-config';

export const INTROSPECTION_SECRET = 'test-introspection-secret-0123456789';

export interface TestResourceServer {
  app: NestFastifyApplication;
  config: ResourceConfig;
  databaseUrl: string;
  close(): Promise<void>;
}

export interface TestResourceServerOptions {
  /** The authorization server's origin: introspection goes there, and it is the public origin. */
  authServerUrl?: string;
  env?: Record<string, string>;
}

/**
 * The resource server (not listening: drive it with app.inject) over a fresh, migrated and
 * seeded database (real PostgreSQL when DATABASE_URL is set, embedded otherwise). Without authServerUrl, introspection points at a closed
 * port: fine for anonymous requests and for calling services directly.
 */
export async function startTestResourceServer(options: TestResourceServerOptions = {}): Promise<TestResourceServer> {
  const database = await createTestDatabase('resource');
  const origin = options.authServerUrl ?? 'http://127.0.0.1:9';
  try {
    const config = loadResourceConfig({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      RESOURCE_PORT: '0',
      PUBLIC_BASE_URL: origin,
      AUTH_SERVER_URL: origin,
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: String(database.poolSize),
      INTROSPECTION_CLIENT_SECRET: INTROSPECTION_SECRET,
      SEED_DEMO_DATA: 'true',
      ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}),
      ...options.env,
    });
    const app = await createResourceServer(config, { logger: ['error'] });
    await app.getHttpAdapter().getInstance().ready();
    return {
      app,
      config,
      databaseUrl: database.url,
      async close() {
        await app.close();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
