import { openServiceDatabase, type ServiceDatabase } from '@platform/embedded-postgres';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export interface CliDatabase extends Omit<ServiceDatabase<PrismaClient>, 'client'> {
  prisma: PrismaClient;
}

/**
 * The resource server's database, found the way the launcher finds it: RESOURCE_DATABASE_URL as
 * is; else DATABASE_URL plus `_resource`; else the embedded PostgreSQL in PLATFORM_DATA_DIR
 * (default .data/) at resource/pg, migrated first, as `npm start` does.
 */
export async function openResourceDatabase(env: Record<string, string | undefined>): Promise<CliDatabase> {
  const { client, ...database } = await openServiceDatabase(
    {
      service: 'resource',
      urlVariable: 'RESOURCE_DATABASE_URL',
      url: env['RESOURCE_DATABASE_URL'],
      serverUrl: env['DATABASE_URL'],
      dataRoot: env['PLATFORM_DATA_DIR'],
    },
    (settings) => new PrismaClient({ adapter: new PrismaPg(settings) }),
  );
  return { prisma: client, ...database };
}
