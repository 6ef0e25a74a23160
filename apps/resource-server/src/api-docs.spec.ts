import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { LocalEventBus } from '@platform/event-bus';
import { createResourceServer } from './bootstrap';
import { loadResourceConfig } from './config/resource-config';

type Operation = { summary?: string; tags?: string[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

/**
 * The OpenAPI document @nestjs/swagger builds from the controllers' and DTOs' decorators
 * (the published /openapi.json is made from it): every operation is described, tagged and
 * typed. No database is touched: Prisma connects lazily and nothing here queries.
 */
describe('the OpenAPI document of the API', () => {
  let app: NestFastifyApplication;
  let document: OpenAPIObject;
  const operations: [string, Operation][] = [];

  beforeAll(async () => {
    const config = loadResourceConfig({
      NODE_ENV: 'test',
      DATABASE_URL: 'postgresql://nobody@127.0.0.1:9/none',
      INTROSPECTION_CLIENT_SECRET: 'not-used-in-this-test-0123',
      SEED_DEMO_DATA: 'false',
    });
    app = await createResourceServer(config, { eventBus: new LocalEventBus(), logger: false });
    document = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('test').build());
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (path.startsWith('/api/v1/')) operations.push([`${method.toUpperCase()} ${path}`, operation as Operation]);
      }
    }
  });

  afterAll(async () => {
    await app?.close();
  });

  it('describes every route of the API', () => {
    expect(operations.length).toBeGreaterThan(60);
    const missing = operations.filter(([, operation]) => !operation.summary || !operation.tags?.length).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('gives every operation a typed success response', () => {
    const untyped = operations
      .filter(([, operation]) => {
        const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        return success.length === 0 || success.some(([status, response]) => status !== '204' && !response.content);
      })
      .map(([name]) => name);
    expect(untyped).toEqual([]);
  });

  it('documents request bodies and list envelopes with named schemas', () => {
    const schemas = Object.keys(document.components?.schemas ?? {});
    expect(schemas).toEqual(expect.arrayContaining(['CourseDto', 'CreateCourseDto', 'UpdateCourseDto', 'OrderDto', 'CurriculumDto', 'ErrorDto', 'StoredFileDto']));
    const list = document.paths['/api/v1/courses'].get?.responses['200'] as { content: Record<string, { schema: { properties: object } }> };
    expect(Object.keys(list.content['application/json'].schema.properties)).toEqual(['data', 'next_cursor']);
    const create = document.paths['/api/v1/courses'].post?.requestBody as { content: Record<string, { schema: { $ref: string } }> };
    expect(create.content['application/json'].schema.$ref).toBe('#/components/schemas/CreateCourseDto');
    const params = (document.paths['/api/v1/courses'].get?.parameters ?? []) as { name: string }[];
    expect(params.map((param) => param.name)).toEqual(['limit', 'cursor', 'school', 'slug', 'lecturer_id', 'published']);
  });

  it('keeps nested arrays of objects in the schemas', () => {
    const order = document.components?.schemas?.['OrderDto'] as { properties: Record<string, { type: string; items?: { properties?: object } }> };
    expect(order.properties['items'].type).toBe('array');
    expect(Object.keys(order.properties['items'].items?.properties ?? {})).toContain('unit_price_cents');
  });

  it('publishes the audit log and the webhooks with their scopes, and never the internal ingest', async () => {
    const published = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };
    const scopesOf = (path: string, method: string) => published.paths[path]?.[method]?.security?.flatMap((requirement) => Object.values(requirement).flat());
    expect(scopesOf('/api/v1/audit-log', 'get')).toEqual(['audit_log:read']);
    expect(scopesOf('/api/v1/webhooks', 'post')).toEqual(['webhooks:write']);
    expect(scopesOf('/api/v1/webhooks/{webhookId}/deliveries', 'get')).toEqual(['webhooks:read']);
    expect(scopesOf('/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', 'post')).toEqual(['webhooks:write']);
    expect(scopesOf('/api/v1/orders', 'post')).toEqual(['orders:write']);
    expect(Object.keys(published.paths).filter((path) => path.startsWith('/internal'))).toEqual([]);
  });
});
