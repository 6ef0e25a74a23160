/**
 * Metadata documents of private_key_jwt clients through the real resolver (TLS, a real database):
 * a ChatGPT-shaped document resolves with its keys, the row mirrors them for staff, and a
 * jwks_uri on a host the policy denies refuses the document.
 */
import { Logger } from '@nestjs/common';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { ClientMetadataDocumentResolver, loadCimdConfig, MetadataDocumentError } from '../../src/client-metadata-documents';
import { MetadataDocumentClientsRepository } from '../../src/client-metadata-documents/metadata-document-clients.repository';
import type { AuthConfig } from '../../src/config/auth-config';
import { PrismaService } from '../../src/database/prisma.service';
import { DocumentHost, mappedResolver } from './support/document-host';
import { createTestCertificates, type TestCertificates } from './support/test-ca';

const NAMES = ['chatgpt.example', 'keys.elsewhere.example'];

let certs: TestCertificates;
let host: DocumentHost;
let database: TestDatabase;
let prisma: PrismaService;
let publicJwk: JWK;

function resolver(env: Record<string, string> = {}) {
  const config = loadCimdConfig({ NODE_ENV: 'test', CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true', CIMD_EXTRA_CA_FILE: certs.caFile, ...env });
  const names = Object.fromEntries(NAMES.map((name) => [name, '127.0.0.1']));
  return new ClientMetadataDocumentResolver(config, new MetadataDocumentClientsRepository(prisma), { resolver: mappedResolver(names) });
}

beforeAll(async () => {
  Logger.overrideLogger(['error']);
  certs = createTestCertificates(NAMES);
  host = await new DocumentHost(certs).start();
  database = await createTestDatabase('auth');
  prisma = new PrismaService({ database: { url: database.url, poolSize: database.poolSize } } as AuthConfig);
  publicJwk = { ...(await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey)), kid: 'connector-key' };
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await host?.stop();
  certs?.cleanup();
});

const chatGptShaped = (extra: Record<string, unknown>) => (url: string) => ({
  client_id: url,
  client_name: 'ChatGPT',
  redirect_uris: [host.url('chatgpt.example', '/connector/oauth/abc123')],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
  token_endpoint_auth_method: 'private_key_jwt',
  ...extra,
});

it('a ChatGPT-shaped document with jwks resolves as a private_key_jwt client; the row mirrors its keys', async () => {
  const clientId = host.json('chatgpt.example', '/oauth/abc123/client.json', chatGptShaped({ jwks: { keys: [publicJwk] } }));
  const client = await resolver().resolve(clientId);
  expect(client).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', secretHash: null, keys: { jwks: { keys: [publicJwk] } } });
  const row = await prisma.client.findUniqueOrThrow({ where: { id: clientId } });
  expect(row).toMatchObject({ kind: 'metadata_document', tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] }, jwksUri: null });
});

it('with a jwks_uri on its own origin: resolved, the URI kept (keys fetched when it authenticates)', async () => {
  const jwksUri = host.url('chatgpt.example', '/oauth/jwks.json');
  const clientId = host.json('chatgpt.example', '/oauth/def456/client.json', chatGptShaped({ jwks_uri: jwksUri }));
  expect(await resolver().resolve(clientId)).toMatchObject({ keys: { jwksUri } });
  expect(host.hitCount('chatgpt.example', '/oauth/jwks.json')).toBe(0);
  expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).jwksUri).toBe(jwksUri);
});

it('a jwks_uri on a host the policy denies refuses the document (its keys would be fetched from there)', async () => {
  const clientId = host.json('chatgpt.example', '/oauth/ghi789/client.json', chatGptShaped({ jwks_uri: host.url('keys.elsewhere.example', '/jwks.json') }));
  const error = await resolver({ CIMD_DENIED_HOSTS: 'keys.elsewhere.example' })
    .resolve(clientId)
    .catch((refusal: unknown) => refusal);
  expect(error).toBeInstanceOf(MetadataDocumentError);
  expect((error as MetadataDocumentError).description).toContain('the host of its jwks_uri is not allowed');
});

it('a document naming client_secret_basic is refused, as before', async () => {
  const clientId = host.json('chatgpt.example', '/oauth/secret/client.json', chatGptShaped({ token_endpoint_auth_method: 'client_secret_basic' }));
  await expect(resolver().resolve(clientId)).rejects.toMatchObject({ error: 'invalid_client', description: expect.stringContaining('needs a shared secret') });
});
