import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { startAuthServer } from '../../src/bootstrap';
import { type AuthConfig, loadAuthConfig } from '../../src/config/auth-config';
import { freePort } from '../../../../tools/test-support/free-port';

export { freePort };

export const INTROSPECTION_CLIENT = { id: 'resource-server', secret: 'test-introspection-secret-0123456789' };
export const DEMO_USER = { email: 'demo@academy.test', password: 'demo-password' };
export const OTHER_SCHOOL_USER = { email: 'other@academy.test', password: 'other-password' };

export interface TestAuthServer {
  issuer: string;
  config: AuthConfig;
  app: NestFastifyApplication;
  databaseKind: string;
  close(): Promise<void>;
}

/**
 * The real authorization server on a real port, over a fresh database (real PostgreSQL when
 * DATABASE_URL is set, the embedded one otherwise) and Redis when REDIS_URL is set.
 */
/** What every test auth server is started with: its own port and database, the demo data. */
export function testServerEnv(port: number, database: TestDatabase): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    AUTH_PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: String(database.poolSize),
    INTROSPECTION_CLIENT_ID: INTROSPECTION_CLIENT.id,
    INTROSPECTION_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
    SEED_DEMO_DATA: 'true',
  };
}

export async function startTestAuthServer(env: Record<string, string> = {}): Promise<TestAuthServer> {
  const database = await createTestDatabase('auth');
  const port = await freePort();
  const config = loadAuthConfig({
    ...testServerEnv(port, database),
    // Suites register many clients from one address; the limits have their own suite (test/hardening).
    RATE_LIMITS_ENABLED: 'false',
    MAINTENANCE_ENABLED: 'false',
    ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}),
    ...env,
  });
  const app = await startAuthServer(config, { logger: ['error'] });
  return {
    issuer: config.issuer,
    config,
    app,
    databaseKind: database.kind,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

