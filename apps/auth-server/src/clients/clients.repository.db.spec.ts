/**
 * Registration writes its row with one INSERT of its own over the shared pg pool; everything
 * else reads clients through Prisma. The two must agree on every column, the defaults and the
 * time zone of created_at.
 */
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import type { AuthConfig } from '../config/auth-config';
import { PrismaService } from '../database/prisma.service';
import { ClientsRepository, type NewClient } from './clients.repository';

jest.setTimeout(60_000);

let database: TestDatabase;
let prisma: PrismaService;
let clients: ClientsRepository;

beforeAll(async () => {
  database = await createTestDatabase('auth');
  prisma = new PrismaService({ database: { url: database.url, poolSize: database.poolSize } } as AuthConfig);
  clients = new ClientsRepository(prisma);
});

afterAll(async () => {
  await prisma?.onApplicationShutdown();
  await database?.drop();
});

const confidential: NewClient = {
  id: 'raw-insert-confidential',
  secretHash: 'c2VjcmV0LWhhc2g',
  name: 'Ünïcode “client”',
  applicationType: 'native',
  redirectUris: ['http://127.0.0.1:8765/callback', 'http://[::1]/cb?x="1",{2}'],
  tokenEndpointAuthMethod: 'client_secret_basic',
  dpopBoundAccessTokens: true,
  grantTypes: ['authorization_code', 'refresh_token'],
  responseTypes: ['code'],
  scope: 'openid students:read',
};

it('stores a registered client as Prisma reads it back, with the schema defaults', async () => {
  const before = Date.now();
  const inserted = await clients.insertClient(confidential);
  expect(inserted).toEqual({ ...confidential, createdAt: expect.any(Date) });
  expect(inserted.createdAt.getTime()).toBeGreaterThanOrEqual(before);

  const row = await prisma.client.findUnique({ where: { id: confidential.id } });
  expect(row).toEqual({
    ...confidential,
    createdAt: inserted.createdAt,
    firstAuthorizedAt: null,
    kind: 'dynamic',
    disabledAt: null,
    metadataFetchedAt: null,
    scopeCeiling: null,
    jwks: null,
    jwksUri: null,
  });
  expect(await clients.findClientById(confidential.id)).toEqual({
    ...confidential,
    createdAt: inserted.createdAt,
    kind: 'dynamic',
    disabledAt: null,
    scopeCeiling: null,
  });
});

it('stores a public client without a secret or name', async () => {
  const publicClient: NewClient = { ...confidential, id: 'raw-insert-public', secretHash: null, name: null, tokenEndpointAuthMethod: 'none', scope: '' };
  await clients.insertClient(publicClient);
  expect(await prisma.client.findUnique({ where: { id: publicClient.id } })).toMatchObject({ secretHash: null, name: null, scope: '', tokenEndpointAuthMethod: 'none' });
});

it('reads an integration row, disabled and with a ceiling, as Prisma wrote it', async () => {
  const disabledAt = new Date('2026-11-20T10:11:12.345Z');
  const written = await prisma.client.create({
    data: { ...confidential, id: 'read-integration', kind: 'integration', scopeCeiling: 'courses:read students:read', disabledAt },
  });
  expect(await clients.findClientById('read-integration')).toEqual({
    ...confidential,
    id: 'read-integration',
    createdAt: written.createdAt,
    kind: 'integration',
    disabledAt,
    scopeCeiling: 'courses:read students:read',
  });
});

it('finds nothing for an unknown id or one outside the client_id syntax', async () => {
  expect(await clients.findClientById('no-such-client')).toBeNull();
  expect(await clients.findClientById('')).toBeNull();
  expect(await clients.findClientById('tab\tinside')).toBeNull();
});

it('refuses a second client with the same id', async () => {
  await expect(clients.insertClient(confidential)).rejects.toMatchObject({ code: '23505' });
});
