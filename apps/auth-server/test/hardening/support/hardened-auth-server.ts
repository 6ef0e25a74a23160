import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, type TestDatabase } from '../../../../../tools/test-support/test-database';
import { createAuthServer } from '../../../src/bootstrap';
import { type AuthConfig, loadAuthConfig } from '../../../src/config/auth-config';
import { hashPassword } from '../../../src/accounts/password';
import { Client } from 'pg';
import { freePort, INTROSPECTION_CLIENT, testServerEnv } from '../../support/test-auth-server';

export { INTROSPECTION_CLIENT };

export interface HardenedAuthServer {
  issuer: string;
  /** Where this instance listens (the issuer may name another instance of the same server). */
  url: string;
  config: AuthConfig;
  app: NestFastifyApplication;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface HardenedOptions {
  /** Extra environment (limits, REDIS_URL...). */
  env?: Record<string, string>;
  /** Another server's database, to run two instances side by side. */
  database?: TestDatabase;
}

/**
 * The real authorization server with the limits the test sets (rate limits on unless the env
 * says otherwise, no scheduled clean-up). Fresh database per server unless one is given;
 * Redis only when the env names one (REDIS_URL of the run is NOT inherited, so a suite chooses).
 */
export async function startHardenedAuthServer(options: HardenedOptions = {}): Promise<HardenedAuthServer> {
  const database = options.database ?? (await createTestDatabase('auth'));
  const port = await freePort();
  const env: Record<string, string> = {
    ...testServerEnv(port, database),
    MAINTENANCE_ENABLED: 'false',
    ...options.env,
  };
  const config = loadAuthConfig(env);
  const app = await createAuthServer(config, { logger: false });
  await app.listen({ host: '127.0.0.1', port });
  return {
    issuer: config.issuer,
    url: `http://127.0.0.1:${port}`,
    config,
    app,
    database,
    async close() {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
}

/** A user of the demo school of its own, so that locking it disturbs no other test. */
export async function createAccount(server: HardenedAuthServer, email: string, password: string): Promise<void> {
  const client = new Client({ connectionString: server.database.url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO users (id, school_id, email, name, role, password_hash, email_verified) VALUES ($1, 'demo-school', $2, 'Test User', 'member', $3, true)`,
      [`user-${email}`, email, await hashPassword(password)],
    );
  } finally {
    await client.end();
  }
}
