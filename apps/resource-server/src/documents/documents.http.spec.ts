import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocumentsModule } from './documents.module';
import { buildMcpProtectedResourceMetadata, buildProtectedResourceMetadata } from './protected-resource-metadata';
import { TEST_OPTIONS } from '../../test/support/documents-options';

describe('the documents over HTTP', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [DocumentsModule.register(TEST_OPTIONS)] }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(() => app.close());

  it.each([
    ['/.well-known/oauth-protected-resource', buildProtectedResourceMetadata(TEST_OPTIONS), 'https://learn.example.com'],
    ['/.well-known/oauth-protected-resource/mcp', buildMcpProtectedResourceMetadata(TEST_OPTIONS), 'https://learn.example.com/mcp'],
  ])('%s serves the metadata of its resource as cacheable JSON (RFC 9728 §3.3)', async (url, document, resource) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.json()).toEqual(document);
    expect(response.json().resource).toBe(resource);
  });

  it.each([
    ['/auth.md', 'text/markdown; charset=utf-8', '# Authentication guide'],
    ['/pricing.md', 'text/markdown; charset=utf-8', '# Pricing'],
    ['/llms.txt', 'text/plain; charset=utf-8', '# Course Platform API'],
  ])('%s is %s', async (url, contentType, start) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(contentType);
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.body.startsWith(start)).toBe(true);
  });

  it('refuses to start with a malformed pricing file, naming it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pricing-')), 'pricing.yaml');
    writeFileSync(file, 'currency: USD\nplans: nope\n');
    const compiling = Test.createTestingModule({
      imports: [DocumentsModule.register({ ...TEST_OPTIONS, pricingFile: file })],
    }).compile();
    await expect(compiling).rejects.toThrow(`Invalid pricing file ${file}: plans: `);
  });

  it('refuses a base URL with a trailing slash', () => {
    expect(() => DocumentsModule.register({ ...TEST_OPTIONS, publicBaseUrl: 'https://learn.example.com/' })).toThrow(
      'publicBaseUrl must not end with a slash',
    );
  });
});
