import { Logger } from '@nestjs/common';
import { LocalEventBus } from '@platform/event-bus';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import {
  ClientDirectory,
  ClientMetadataDocumentResolver,
  loadCimdConfig,
  MetadataDocumentError,
  scopePolicyOf,
} from '../../src/client-metadata-documents';
import { MetadataDocumentClientsRepository } from '../../src/client-metadata-documents/metadata-document-clients.repository';
import { ClientsRepository } from '../../src/clients/clients.repository';
import { HeldClients } from '../../src/clients/held-clients';
import { RevocationTrust } from '../../src/events/revocation-trust';
import type { AuthConfig } from '../../src/config/auth-config';
import { PrismaService } from '../../src/database/prisma.service';
import { DocumentHost, mappedResolver } from './support/document-host';
import { createTestCertificates, type TestCertificates } from './support/test-ca';

let certs: TestCertificates;
let host: DocumentHost;
let database: TestDatabase;
let prisma: PrismaService;
let directory: ClientDirectory;

beforeAll(async () => {
  // Refusals are logged at debug; the assertions are on the errors themselves.
  Logger.overrideLogger(['error']);
  certs = createTestCertificates(['claude.ai']);
  host = await new DocumentHost(certs).start();
  database = await createTestDatabase('auth');
  prisma = new PrismaService({ database: { url: database.url, poolSize: database.poolSize } } as AuthConfig);
  const config = loadCimdConfig({ NODE_ENV: 'test', CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true', CIMD_EXTRA_CA_FILE: certs.caFile });
  const resolver = new ClientMetadataDocumentResolver(config, new MetadataDocumentClientsRepository(prisma), {
    resolver: mappedResolver({ 'claude.ai': '127.0.0.1' }),
  });
  // No REDIS_URL in this config: every lookup reads the database (HeldClients holds nothing).
  directory = new ClientDirectory(new HeldClients(new ClientsRepository(prisma), new RevocationTrust(new LocalEventBus()), {}), resolver);
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await host?.stop();
  certs?.cleanup();
});

const base = {
  secretHash: null,
  applicationType: 'native',
  tokenEndpointAuthMethod: 'none',
  grantTypes: ['authorization_code', 'refresh_token'],
  responseTypes: ['code'],
};

describe('ClientDirectory: one lookup for every kind of client', () => {
  it('a self-registered client: loopback only, no ceiling', async () => {
    await prisma.client.create({ data: { ...base, id: 'dyn-client', name: 'CLI', redirectUris: ['http://127.0.0.1/cb'], scope: 'openid' } });
    const client = await directory.findClient('dyn-client');
    expect(client).toMatchObject({ kind: 'dynamic', host: null, loopbackOnly: true, scopeCeiling: null });
    expect(client && scopePolicyOf(client)).toEqual({ defaultScopes: ['openid'], ceiling: null });
  });

  it('a staff integration: its ceiling becomes the scope policy ceiling', async () => {
    await prisma.client.create({
      data: { ...base, id: 'int-client', kind: 'integration', name: 'LMS', redirectUris: ['https://lms.example/cb'], scope: '', scopeCeiling: 'openid profile', tokenEndpointAuthMethod: 'client_secret_basic', secretHash: 'h' },
    });
    const client = await directory.findClient('int-client');
    expect(client).toMatchObject({ kind: 'integration', loopbackOnly: false, scopeCeiling: 'openid profile' });
    expect(client && scopePolicyOf(client)).toEqual({ defaultScopes: [], ceiling: ['openid', 'profile'] });
  });

  it('a disabled client is unknown; an unknown one is null', async () => {
    await prisma.client.create({ data: { ...base, id: 'off-client', redirectUris: ['http://127.0.0.1/cb'], scope: '', disabledAt: new Date() } });
    expect(await directory.findClient('off-client')).toBeNull();
    expect(await directory.findClient('never-registered')).toBeNull();
  });

  it('a client_id URL: resolved from its document, with its host', async () => {
    const clientId = host.json('claude.ai', '/oauth/mcp-oauth-client-metadata', (url: string) => ({
      client_id: url,
      client_name: 'Claude',
      redirect_uris: [host.url('claude.ai', '/api/mcp/auth_callback')],
      token_endpoint_auth_method: 'none',
    }));
    expect(await directory.findClient(clientId)).toMatchObject({ kind: 'metadata_document', host: `claude.ai:${host.port}`, loopbackOnly: false, scopeCeiling: null });
    await expect(directory.findClient('http://claude.ai/oauth/x')).rejects.toBeInstanceOf(MetadataDocumentError);
  });
});
