/**
 * Uploads are kept in the resource server's database: a file stored through one replica is
 * served by every other, whatever disk each has (each replica here is given a STORAGE_DIR of its
 * own, as each container had its own volume; the variable is no longer read). Real PostgreSQL
 * and the embedded one alike, except the two-replica case: the embedded PostgreSQL serves one
 * process's single session, so a second replica cannot share it.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { DEMO_OWNER } from '../../test/support/principals';
import { createResourceServer } from '../bootstrap';
import { loadResourceConfig } from '../config/resource-config';
import { PrismaService } from '../database/prisma.service';
import { FILES_PATH, StorageService } from './storage.service';
import { CONTENT_SLICE_BYTES } from './stored-content';

jest.setTimeout(60_000);

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1000, 7)]);

async function replica(database: TestDatabase, seed: boolean, directories: string[]): Promise<NestFastifyApplication> {
  const storageDir = await mkdtemp(join(tmpdir(), 'resource-replica-disk-'));
  directories.push(storageDir);
  const config = loadResourceConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: String(database.poolSize),
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
    AUTH_SERVER_URL: 'http://127.0.0.1:9',
    STORAGE_DIR: storageDir,
    SEED_DEMO_DATA: String(seed),
  });
  const app = await createResourceServer(config, { logger: false });
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe('uploads kept in the database', () => {
  let database: TestDatabase;
  const apps: NestFastifyApplication[] = [];
  const directories: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('resource');
    apps.push(await replica(database, true, directories));
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.drop();
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  const download = (app: NestFastifyApplication, id: string) => app.inject({ url: `/${FILES_PATH}/${id}` });

  (process.env['DATABASE_URL'] ? it : it.skip)('a file uploaded through one replica is served by another', async () => {
    apps.push(await replica(database, false, directories));
    const [first, second] = apps;
    const stored = await first.get(StorageService).upload(DEMO_OWNER, 'image/png', png, 'logo.png');
    for (const app of [second, first]) {
      const served = await download(app, stored.id);
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(png)).toBe(true);
      expect(served.headers['content-length']).toBe(String(png.length));
      expect(served.headers['etag']).toBe(`"${stored.sha256}"`);
    }
  });

  it('streams a file of several slices back whole and exact', async () => {
    const text = Buffer.from('0123456789abcdef\n'.repeat(Math.ceil((2.5 * CONTENT_SLICE_BYTES) / 17)));
    const stored = await apps[0].get(StorageService).upload(DEMO_OWNER, 'text/plain', text);
    const served = await download(apps[0], stored.id);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(served.rawPayload.length).toBe(text.length);
    expect(served.rawPayload.equals(text)).toBe(true);
  });

  it('writes the metadata and the content together: a failed upload leaves neither', async () => {
    const prisma = apps[0].get(PrismaService);
    const before = await prisma.storedFile.count();
    // A school that does not exist: the metadata row's foreign key fails, and the content with it.
    const failed = apps[0].get(StorageService).upload({ ...DEMO_OWNER, schoolId: 'no-such-school' }, 'image/png', png);
    await expect(failed).rejects.toThrow();
    expect(await prisma.storedFile.count()).toBe(before);
    expect(await prisma.storedFileContent.count()).toBe(before);
  });

  it('answers 404 for an unknown id, and for a file whose content is missing', async () => {
    expect((await download(apps[0], 'AAAAAAAAAAAAAAAAAAAAAAAA')).statusCode).toBe(404);
    const stored = await apps[0].get(StorageService).upload(DEMO_OWNER, 'image/png', png);
    await apps[0].get(PrismaService).storedFileContent.delete({ where: { fileId: stored.id } });
    expect((await download(apps[0], stored.id)).statusCode).toBe(404);
  });
});
