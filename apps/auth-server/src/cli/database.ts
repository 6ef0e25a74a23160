import { openServiceDatabase, type ServiceDatabase } from '@platform/embedded-postgres';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export interface CliDatabase extends Omit<ServiceDatabase<PrismaClient>, 'client'> {
  prisma: PrismaClient;
}

/**
 * The auth server's database, found the way the launcher finds it:
 * AUTH_DATABASE_URL as is; else DATABASE_URL plus `_auth` (the launcher's per-service
 * database on that server); else the embedded PostgreSQL in PLATFORM_DATA_DIR (default
 * .data/) at auth/pg, migrated first, as `npm start` does.
 */
export async function openAuthDatabase(env: Record<string, string | undefined>): Promise<CliDatabase> {
  const { client, ...database } = await openServiceDatabase(
    {
      service: 'auth',
      urlVariable: 'AUTH_DATABASE_URL',
      url: env['AUTH_DATABASE_URL'],
      serverUrl: env['DATABASE_URL'],
      dataRoot: env['PLATFORM_DATA_DIR'],
    },
    (settings) => new PrismaClient({ adapter: new PrismaPg(settings) }),
  );
  return { prisma: client, ...database };
}
