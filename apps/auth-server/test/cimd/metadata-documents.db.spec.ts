import { Logger } from '@nestjs/common';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import {
  type CimdConfig,
  ClientMetadataDocumentResolver,
  loadCimdConfig,
  MetadataDocumentError,
  type Resolver,
} from '../../src/client-metadata-documents';
import { MetadataDocumentFetchLimitError } from '../../src/client-metadata-documents/errors';
import { MetadataDocumentClientsRepository } from '../../src/client-metadata-documents/metadata-document-clients.repository';
import type { AuthConfig } from '../../src/config/auth-config';
import { PrismaService } from '../../src/database/prisma.service';
import { DocumentHost, mappedResolver } from './support/document-host';
import { createTestCertificates, type TestCertificates } from './support/test-ca';

/**
 * The resolver against real documents over TLS (a local https server with a test CA that
 * only this configuration trusts) and a real database. Host names are mapped to addresses by
 * a stand-in resolver: no real DNS is queried.
 */
const NAMES = ['claude.ai', 'vscode.dev', 'cursor.com', 'client.example', 'other.example'];
const LOOPBACK_NAMES = Object.fromEntries(NAMES.map((name) => [name, '127.0.0.1']));

let certs: TestCertificates;
let host: DocumentHost;
let database: TestDatabase;
let prisma: PrismaService;
let clock = 0;
let pathCounter = 0;

/** A fresh path per test, so no test sees another's cached document. */
const freshPath = (name = 'client-metadata.json') => `/t${++pathCounter}/${name}`;

function testConfig(env: Record<string, string> = {}): CimdConfig {
  return loadCimdConfig({
    NODE_ENV: 'test',
    CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true',
    CIMD_EXTRA_CA_FILE: certs.caFile,
    CIMD_FETCH_TIMEOUT_MS: '1000',
    ...env,
  });
}

function makeResolver(config: CimdConfig = testConfig(), resolver: Resolver = mappedResolver(LOOPBACK_NAMES)) {
  return new ClientMetadataDocumentResolver(config, new MetadataDocumentClientsRepository(prisma), { resolver, now: () => clock });
}

async function refusal(promise: Promise<unknown>): Promise<MetadataDocumentError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MetadataDocumentError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const claudeDocument = (path: string) => (url: string) => ({
  client_id: url,
  client_name: 'Claude',
  client_uri: 'https://claude.ai',
  logo_uri: 'https://claude.ai/favicon.ico',
  redirect_uris: [host.url('claude.ai', '/api/mcp/auth_callback')],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  _path: path,
});

beforeAll(async () => {
  // Refusals are logged at debug; the assertions are on the errors themselves.
  Logger.overrideLogger(['error']);
  certs = createTestCertificates(NAMES);
  host = await new DocumentHost(certs).start();
  database = await createTestDatabase('auth');
  prisma = new PrismaService({ database: { url: database.url, poolSize: database.poolSize } } as AuthConfig);
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await host?.stop();
  certs?.cleanup();
});

beforeEach(() => {
  clock += 10_000_000;
});

describe('documents that real clients publish', () => {
  it('Claude.ai: https callback on its own origin, stored as a metadata_document client', async () => {
    const path = '/oauth/mcp-oauth-client-metadata';
    const clientId = host.json('claude.ai', path, claudeDocument(path));
    const client = await makeResolver().resolve(clientId);
    expect(client).toMatchObject({
      id: clientId,
      kind: 'metadata_document',
      name: 'Claude',
      host: `claude.ai:${host.port}`,
      secretHash: null,
      tokenEndpointAuthMethod: 'none',
      redirectUris: [host.url('claude.ai', '/api/mcp/auth_callback')],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: '',
      loopbackOnly: false,
    });
    const row = await prisma.client.findUniqueOrThrow({ where: { id: clientId } });
    expect(row).toMatchObject({ kind: 'metadata_document', name: 'Claude', secretHash: null, disabledAt: null });
    expect(row.metadataFetchedAt).toBeInstanceOf(Date);
  });

  it('VS Code: loopback and vscode.dev redirects, the device_code grant it lists is ignored', async () => {
    const clientId = host.json('vscode.dev', freshPath(), (url: string) => ({
      client_id: url,
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:33418', 'http://localhost:33418/', host.url('vscode.dev', '/redirect')],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
    const client = await makeResolver().resolve(clientId);
    expect(client.redirectUris).toEqual(['http://127.0.0.1:33418', 'http://localhost:33418/', host.url('vscode.dev', '/redirect')]);
    expect(client.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    expect(client.applicationType).toBe('native');
    expect(client.loopbackOnly).toBe(false);
  });

  it('Cursor: a desktop app with loopback redirects only (its private-use scheme is ignored) is flagged loopback-only', async () => {
    const clientId = host.json('cursor.com', freshPath(), (url: string) => ({
      client_id: url,
      client_name: 'Cursor',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'http://127.0.0.1/oauth/callback'],
      token_endpoint_auth_method: 'none',
      scope: 'openid profile courses:read some-other-server-scope',
    }));
    const client = await makeResolver().resolve(clientId);
    expect(client.redirectUris).toEqual(['http://127.0.0.1/oauth/callback']);
    expect(client.grantTypes).toEqual(['authorization_code']);
    expect(client.loopbackOnly).toBe(true);
    expect(client.scope.split(' ')).not.toContain('some-other-server-scope');
  });
});

describe('refusals', () => {
  const expectRefused = async (clientId: string, problem: string, resolver = makeResolver()) => {
    const error = await refusal(resolver.resolve(clientId));
    expect(error.problem).toBe(problem);
    expect(error.error).toBe('invalid_client');
    expect(error.status).toBe(401);
    // ASCII, no double quote: fits error_description and a WWW-Authenticate parameter.
    expect(error.description).toMatch(/^[\x20-\x21\x23-\x7e]+$/);
    return error;
  };

  it('an http client_id', async () => {
    const error = await expectRefused(`http://client.example:${host.port}${freshPath()}`, 'malformed-client-id');
    expect(error.description).toContain('must use https');
  });

  it('a redirect, which is not followed', async () => {
    const target = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['http://127.0.0.1/cb'] }));
    const path = freshPath();
    const clientId = host.route('client.example', path, (_req, res) => res.writeHead(302, { location: target }).end());
    await expectRefused(clientId, 'redirect');
    expect(host.hitCount('client.example', new URL(target).pathname)).toBe(0);
  });

  it('a 404', async () => {
    const error = await expectRefused(host.url('client.example', freshPath()), 'bad-status');
    expect(error.description).toContain('HTTP 404');
  });

  it('an oversized document, declared or streamed', async () => {
    const big = (url: string) => ({ client_id: url, client_name: 'x'.repeat(100), redirect_uris: ['http://127.0.0.1/cb'], padding: 'p'.repeat(6000) });
    await expectRefused(host.json('client.example', freshPath(), big), 'too-large');
    const path = freshPath();
    const clientId = host.route('client.example', path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Chunked, no Content-Length: the reader stops after 5 KB.
      res.write('{"client_id":"' + host.url('client.example', path) + '","padding":"');
      const chunk = 'p'.repeat(1024);
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed || sent++ > 50) {
          clearInterval(timer);
          res.end();
          return;
        }
        res.write(chunk);
      }, 5);
    });
    await expectRefused(clientId, 'too-large');
  });

  it('a slow server', async () => {
    const clientId = host.route('client.example', freshPath(), () => {
      /* never answers */
    });
    await expectRefused(clientId, 'timeout');
  });

  it('a document whose client_id is not the URL', async () => {
    const clientId = host.json('client.example', freshPath(), { client_id: 'https://client.example/other', client_name: 'x', redirect_uris: ['http://127.0.0.1/cb'] });
    const error = await expectRefused(clientId, 'invalid-document');
    expect(error.description).toContain('client_id');
  });

  it.each([
    ['client_secret_basic', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }],
    ['private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }],
    ['a client_secret member', { client_secret: 'published-for-everyone' }],
  ])('secret-based authentication: %s', async (_name, extra) => {
    const clientId = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['http://127.0.0.1/cb'], ...extra }));
    await expectRefused(clientId, 'invalid-document');
  });

  it('a redirect URI on another origin (another host, or another port of the same host)', async () => {
    const otherHost = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['https://other.example/cb'] }));
    expect((await expectRefused(otherHost, 'invalid-document')).description).toContain('same origin');
    const otherPort = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['https://client.example/cb'] }));
    await expectRefused(otherPort, 'invalid-document');
    const plainHttp = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['http://client.example/cb'] }));
    await expectRefused(plainHttp, 'invalid-document');
  });

  it('a document without client_name or redirect_uris', async () => {
    const noName = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, redirect_uris: ['http://127.0.0.1/cb'] }));
    expect((await expectRefused(noName, 'invalid-document')).description).toContain('client_name is required');
    const noRedirects = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x' }));
    expect((await expectRefused(noRedirects, 'invalid-document')).description).toContain('redirect_uris is required');
  });

  it('another content type, or not JSON', async () => {
    const path = freshPath();
    const html = host.route('client.example', path, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('{}'));
    await expectRefused(html, 'bad-content-type');
    const path2 = freshPath();
    const broken = host.route('client.example', path2, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{nope'));
    await expectRefused(broken, 'not-json');
  });

  describe('special-use addresses (production settings: no allowance)', () => {
    const strict = (names: Record<string, string | string[]>) =>
      makeResolver(testConfig({ CIMD_ALLOW_SPECIAL_USE_HOSTS: 'false' }), mappedResolver(names));

    it.each([
      ['loopback', '127.0.0.1'],
      ['private', '10.0.0.1'],
      ['link-local (cloud metadata)', '169.254.169.254'],
      ['CGNAT', '100.64.0.1'],
      ['IPv6 loopback', '::1'],
      ['IPv4-mapped IPv6 loopback', '::ffff:127.0.0.1'],
      ['one bad address among good ones', ['93.184.216.34', '192.168.1.1']],
    ])('a host name that resolves to a %s address', async (_name, addresses) => {
      const clientId = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['http://127.0.0.1/cb'] }));
      const before = host.hitCount('client.example', new URL(clientId).pathname);
      await expectRefused(clientId, 'special-use-address', strict({ 'client.example': addresses }));
      expect(host.hitCount('client.example', new URL(clientId).pathname)).toBe(before);
    });

    it('an IP literal host', async () => {
      await expectRefused(`https://127.0.0.1:${host.port}${freshPath()}`, 'special-use-address', strict({}));
      await expectRefused(`https://[::1]:${host.port}${freshPath()}`, 'special-use-address', strict({}));
    });
  });

  it('hosts outside the operator policy', async () => {
    const clientId = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['http://127.0.0.1/cb'] }));
    await expectRefused(clientId, 'host-not-allowed', makeResolver(testConfig({ CIMD_DENIED_HOSTS: 'client.example' })));
    await expectRefused(clientId, 'host-not-allowed', makeResolver(testConfig({ CIMD_ALLOWED_HOSTS: 'claude.ai,*.vscode.dev' })));
    await expect(makeResolver(testConfig({ CIMD_ALLOWED_HOSTS: '*.example' })).resolve(clientId)).resolves.toMatchObject({ id: clientId });
  });

  it('a client disabled by staff', async () => {
    const clientId = host.json('client.example', freshPath(), (url: string) => ({ client_id: url, client_name: 'x', redirect_uris: ['http://127.0.0.1/cb'] }));
    const resolver = makeResolver();
    await resolver.resolve(clientId);
    await prisma.client.update({ where: { id: clientId }, data: { disabledAt: new Date() } });
    await expectRefused(clientId, 'disabled', resolver);
  });
});

describe('caching', () => {
  const document = (name: string) => (url: string) => ({ client_id: url, client_name: name, redirect_uris: ['http://127.0.0.1/cb'] });

  it('keeps a document for its max-age, then uses the changed document', async () => {
    const path = freshPath();
    const clientId = host.json('client.example', path, document('First'), { 'cache-control': 'max-age=600' });
    const resolver = makeResolver();
    expect((await resolver.resolve(clientId)).name).toBe('First');
    host.json('client.example', path, document('Second'), { 'cache-control': 'max-age=600' });
    clock += 599_000;
    expect((await resolver.resolve(clientId)).name).toBe('First');
    expect(host.hitCount('client.example', path)).toBe(1);
    clock += 2_000;
    expect((await resolver.resolve(clientId)).name).toBe('Second');
    expect(host.hitCount('client.example', path)).toBe(2);
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).name).toBe('Second');
  });

  it('no-store still keeps the document for the floor (60 s); a huge max-age only for the ceiling (24 h)', async () => {
    const path = freshPath();
    const clientId = host.json('client.example', path, document('x'), { 'cache-control': 'no-store' });
    const resolver = makeResolver();
    await resolver.resolve(clientId);
    clock += 59_000;
    await resolver.resolve(clientId);
    expect(host.hitCount('client.example', path)).toBe(1);
    clock += 2_000;
    await resolver.resolve(clientId);
    expect(host.hitCount('client.example', path)).toBe(2);

    const longPath = freshPath();
    const longLived = host.json('client.example', longPath, document('y'), { 'cache-control': 'max-age=31536000' });
    await resolver.resolve(longLived);
    clock += 86_399_000;
    await resolver.resolve(longLived);
    expect(host.hitCount('client.example', longPath)).toBe(1);
    clock += 2_000;
    await resolver.resolve(longLived);
    expect(host.hitCount('client.example', longPath)).toBe(2);
  });

  it('never caches a failure or an invalid document', async () => {
    const path = freshPath();
    const clientId = host.url('client.example', path);
    const resolver = makeResolver();
    await expect(resolver.resolve(clientId)).rejects.toBeInstanceOf(MetadataDocumentError);
    host.json('client.example', path, (url: string) => ({ client_id: url, redirect_uris: ['http://127.0.0.1/cb'] }), { 'cache-control': 'max-age=600' });
    await expect(resolver.resolve(clientId)).rejects.toMatchObject({ problem: 'invalid-document' });
    host.json('client.example', path, document('Fixed'), { 'cache-control': 'max-age=600' });
    expect((await resolver.resolve(clientId)).name).toBe('Fixed');
    expect(host.hitCount('client.example', path)).toBe(3);
  });

  it('coalesces concurrent fetches of one URL', async () => {
    const path = freshPath();
    const clientId = host.url('client.example', path);
    const release: (() => void)[] = [];
    host.route('client.example', path, (_req, res) => {
      release.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document('Shared')(clientId))));
    });
    const resolver = makeResolver();
    const pending = Array.from({ length: 8 }, () => resolver.resolve(clientId));
    while (release.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    release.forEach((send) => send());
    const clients = await Promise.all(pending);
    expect(new Set(clients.map((client) => client.name))).toEqual(new Set(['Shared']));
    expect(host.hitCount('client.example', path)).toBe(1);
  });
});

describe('fetch budget per host (CIMD_FETCHES_PER_HOST_PER_MINUTE)', () => {
  it('once a host has had its fetches this minute, further URLs of it get 429 without a fetch, until the minute ends', async () => {
    const resolver = makeResolver(testConfig({ CIMD_FETCHES_PER_HOST_PER_MINUTE: '2' }));
    const paths = [freshPath(), freshPath(), freshPath()];
    const url = (path: string) => host.url('client.example', path);
    // Nothing is served there: each is a 404, never cached, so each costs a fetch.
    await expect(resolver.resolve(url(paths[0]))).rejects.toMatchObject({ problem: 'bad-status' });
    await expect(resolver.resolve(url(paths[1]))).rejects.toMatchObject({ problem: 'bad-status' });
    const limited = resolver.resolve(url(paths[2]));
    await expect(limited).rejects.toBeInstanceOf(MetadataDocumentFetchLimitError);
    await expect(limited).rejects.toMatchObject({ status: 429, error: 'too_many_requests' });
    expect(host.hitCount('client.example', paths[2])).toBe(0);
    clock += 60_000;
    await expect(resolver.resolve(url(paths[2]))).rejects.toMatchObject({ problem: 'bad-status' });
    expect(host.hitCount('client.example', paths[2])).toBe(1);
  });
});
