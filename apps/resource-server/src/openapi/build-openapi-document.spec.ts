import { Body, Controller, Delete, type DynamicModule, Get, type INestApplication, Module, Param, Post, type Type } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiOperation, type OpenAPIObject, type OperationObject, type SchemaObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { AllowAnonymous, PublicRoute, RequireScopes } from '@platform/bearer-auth';
import { AUTHORIZATION_SERVER_OPENAPI } from '@platform/contracts';
import { OAuthExceptionFilter } from '@platform/oauth-errors';
import { ALL_SCOPES, SCOPES } from '@platform/scopes';
import { execFileSync } from 'node:child_process';
import { DocumentsModule } from '../documents/documents.module';
import { TEST_OPTIONS } from '../../test/support/documents-options';
import { buildOpenApiDocument } from './build-openapi-document';
import { OpenApiModule, publishOpenApiDocument } from './openapi.module';
import type { OpenApiOptions } from './openapi-options';

const OPTIONS: OpenApiOptions = { publicBaseUrl: 'https://learn.example.com', issuer: 'https://learn.example.com', scopes: SCOPES };

@Controller('api/v1/courses')
class CoursesController {
  @Get()
  @RequireScopes('courses:read')
  @AllowAnonymous()
  list() {
    return [];
  }

  @Post()
  @RequireScopes('courses:write')
  create(@Body() _body: unknown) {
    return {};
  }

  @Delete(':courseId')
  @RequireScopes('courses:write', 'curriculum:write')
  @ApiOperation({ summary: 'Delete a course', operationId: 'deleteCourse' })
  remove(@Param('courseId') _id: string) {
    return undefined;
  }
}

@Controller('api/v1/students')
@RequireScopes('students:read')
class StudentsController {
  @Get()
  list() {
    return [];
  }

  @Post()
  @RequireScopes('students:write')
  create() {
    return {};
  }
}

@Controller('health')
class HealthController {
  @Get()
  @PublicRoute()
  health() {
    return { ok: true };
  }
}

@Module({ controllers: [CoursesController, StudentsController, HealthController] })
class ApiModule {}

async function createApp(...modules: (Type | DynamicModule)[]): Promise<NestFastifyApplication> {
  const moduleRef = await Test.createTestingModule({ imports: modules }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  app.useGlobalFilters(new OAuthExceptionFilter());
  await app.init();
  return app;
}

/** The maintained validator is ESM-only: it runs in its own node process, outside Jest's module system. */
function validate(document: OpenAPIObject): { valid: boolean; errors?: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(input));
    process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(document),
    cwd: process.cwd(),
  });
  return JSON.parse(output.toString('utf8'));
}

function operation(document: OpenAPIObject, method: 'get' | 'post' | 'delete', path: string): OperationObject {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`no ${method} ${path} in ${Object.keys(document.paths).join(', ')}`);
  return found;
}

describe('the OpenAPI document', () => {
  let app: INestApplication;
  let document: OpenAPIObject;

  beforeAll(async () => {
    app = await createApp(ApiModule, DocumentsModule.register(TEST_OPTIONS), OpenApiModule.register(OPTIONS));
    document = buildOpenApiDocument(app, OPTIONS);
  });

  afterAll(() => app.close());

  it('is a valid OpenAPI 3.0 document', () => {
    expect(document.openapi).toBe('3.0.3');
    expect(validate(document)).toEqual({ valid: true, version: '3.0' });
  });

  it('would be caught by the validator if it were not', () => {
    const broken = { ...document, paths: { ...document.paths, 'no-leading-slash': {} } };
    expect(validate(broken).valid).toBe(false);
    const dangling = { ...document, paths: { '/x': { get: { responses: { '200': { $ref: '#/components/responses/Nope' } } } } } };
    expect(validate(dangling).valid).toBe(false);
  });

  it('has the origin as its server and an oauth2 authorization code scheme with every scope', () => {
    expect(document.servers).toEqual([{ url: 'https://learn.example.com' }]);
    const scheme = document.components?.securitySchemes?.oauth2;
    expect(scheme).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: 'https://learn.example.com/oauth/authorize',
          tokenUrl: 'https://learn.example.com/api/oauth/token',
          refreshUrl: 'https://learn.example.com/api/oauth/token',
        },
      },
    });
    const scopes = (scheme as { flows: { authorizationCode: { scopes: Record<string, string> } } }).flows.authorizationCode.scopes;
    expect(Object.keys(scopes)).toEqual([...ALL_SCOPES]);
    expect(scopes['courses:write']).toBe('Create, edit and delete courses');
  });

  it('requires exactly the scopes of @RequireScopes', () => {
    expect(operation(document, 'post', '/api/v1/courses').security).toEqual([{ oauth2: ['courses:write'] }]);
    expect(operation(document, 'delete', '/api/v1/courses/{courseId}').security).toEqual([
      { oauth2: ['courses:write', 'curriculum:write'] },
    ]);
  });

  it('adds the anonymous alternative {} to @AllowAnonymous routes', () => {
    expect(operation(document, 'get', '/api/v1/courses').security).toEqual([{ oauth2: ['courses:read'] }, {}]);
  });

  it('reads class-level scopes, overridden by the method’s', () => {
    expect(operation(document, 'get', '/api/v1/students').security).toEqual([{ oauth2: ['students:read'] }]);
    expect(operation(document, 'post', '/api/v1/students').security).toEqual([{ oauth2: ['students:write'] }]);
  });

  it('gives @PublicRoute operations an empty security array', () => {
    expect(operation(document, 'get', '/health').security).toEqual([]);
    expect(operation(document, 'get', '/.well-known/oauth-protected-resource').security).toEqual([]);
    expect(operation(document, 'get', '/auth.md').security).toEqual([]);
    expect(operation(document, 'get', '/openapi.json').security).toEqual([]);
  });

  it('gives every operation a security requirement', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
        if (item[method]) expect({ path, method, security: item[method]?.security }).toEqual({ path, method, security: expect.any(Array) });
      }
    }
  });

  it('documents the 401 and 403 answers of protected operations', () => {
    expect(operation(document, 'post', '/api/v1/courses').responses).toMatchObject({
      '401': { $ref: '#/components/responses/Unauthorized' },
      '403': { $ref: '#/components/responses/InsufficientScope' },
    });
    expect(operation(document, 'get', '/health').responses['401']).toBeUndefined();
  });

  it('documents the 429 (with Retry-After) of what the request limits count: writes, and reads that serve callers without a token', () => {
    const limited = { $ref: '#/components/responses/TooManyRequests' };
    expect(operation(document, 'post', '/api/v1/courses').responses['429']).toEqual(limited);
    expect(operation(document, 'delete', '/api/v1/courses/{courseId}').responses['429']).toEqual(limited);
    expect(operation(document, 'get', '/api/v1/courses').responses['429']).toEqual(limited);
    expect(operation(document, 'get', '/api/v1/students').responses['429']).toBeUndefined();
    expect(operation(document, 'get', '/health').responses['429']).toBeUndefined();
    expect(document.components?.responses?.['TooManyRequests']).toMatchObject({ headers: { 'Retry-After': { schema: { type: 'integer' } } } });
    for (const path of ['/api/oauth/register', '/api/oauth/token', '/api/oauth/introspect']) {
      expect(operation(document, 'post', path).responses['429']).toMatchObject({
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } },
      });
    }
  });

  it('documents the authorization server’s endpoints with form bodies and RFC 6749 errors', () => {
    // Registration is open (RFC 7591); token, revocation and introspection take HTTP Basic client
    // authentication or, `{}`, credentials in the body (or none, for a public client).
    const clientAuthentication = [{ clientBasic: [] }, {}];
    for (const [method, path, security] of [
      ['post', '/api/oauth/register', []],
      ['get', '/oauth/authorize', []],
      ['post', '/api/oauth/token', clientAuthentication],
      ['post', '/api/oauth/revoke', clientAuthentication],
      ['post', '/api/oauth/introspect', clientAuthentication],
      ['get', '/api/oauth/userinfo', [{ oauth2: ['openid'] }]],
      ['get', '/.well-known/oauth-authorization-server', []],
      ['get', '/.well-known/openid-configuration', []],
      ['get', '/.well-known/jwks.json', []],
    ] as const) {
      expect([method, path, operation(document, method, path).security]).toEqual([method, path, security]);
    }
    const token = operation(document, 'post', '/api/oauth/token');
    expect(token.requestBody).toEqual({
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/TokenRequest' } } },
    });
    expect(token.responses['400']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } } });
    expect(operation(document, 'get', '/api/oauth/userinfo').security).toEqual([{ oauth2: ['openid'] }]);
    expect(operation(document, 'get', '/oauth/authorize').parameters?.map((p) => ('name' in p ? p.name : p.$ref))).toEqual([
      'response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource', 'nonce', 'prompt', 'dpop_jkt',
    ]);
  });

  it('is served at /openapi.json once published', async () => {
    const fastify = app as NestFastifyApplication;
    await fastify.getHttpAdapter().getInstance().ready();
    const early = await fastify.inject({ method: 'GET', url: '/openapi.json' });
    expect(early.statusCode).toBe(503);
    expect(early.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'The OpenAPI document is not built yet' });
    publishOpenApiDocument(app);
    const response = await fastify.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });
});

describe('the OpenAPI builder refuses to guess', () => {
  it('stops on a route without @RequireScopes or @PublicRoute', async () => {
    @Controller('orphan')
    class OrphanController {
      @Get()
      get() {
        return {};
      }
    }
    @Module({ controllers: [OrphanController] })
    class OrphanModule {}
    const app = await createApp(OrphanModule);
    expect(() => buildOpenApiDocument(app, OPTIONS)).toThrow('OpenAPI: GET /orphan has neither @RequireScopes nor @PublicRoute');
    await app.close();
  });

  it('stops when two controllers of the same name differ in security', async () => {
    const first = (() => {
      @Controller('a')
      class SameController {
        @Get()
        @RequireScopes('courses:read')
        get() {
          return {};
        }
      }
      return SameController;
    })();
    const second = (() => {
      @Controller('b')
      class SameController {
        @Get()
        @PublicRoute()
        get() {
          return {};
        }
      }
      return SameController;
    })();
    @Module({ controllers: [first, second] })
    class TwinsModule {}
    const app = await createApp(TwinsModule);
    expect(() => buildOpenApiDocument(app, OPTIONS)).toThrow(/maps to several controller methods with different security/);
    await app.close();
  });
});

describe('the authorization server schemas say what the server does', () => {
  const schemas = AUTHORIZATION_SERVER_OPENAPI.components?.schemas as Record<string, SchemaObject>;
  const properties = (name: string) => schemas[name].properties as Record<string, { description?: string; type?: string }>;

  it('registration: scope is a default, not a ceiling, and the answer has it only when registered', () => {
    expect(properties('ClientRegistrationRequest')['scope'].description).toMatch(/default .*not a limit/);
    expect(properties('ClientRegistrationRequest')['scope'].description).toContain('`openid profile`');
    expect(schemas['ClientRegistrationResponse'].required).not.toContain('scope');
  });

  it('refresh: the reuse window of a rotated refresh token', () => {
    expect(schemas['RefreshTokenRequest'].description).toContain('REFRESH_REUSE_GRACE_SECONDS');
  });

  it('discovery: CIMD supported, request_uri not, every client authentication method', () => {
    const metadata = properties('AuthorizationServerMetadata');
    expect(metadata['client_id_metadata_document_supported'].description).toMatch(/^true/);
    expect(metadata['token_endpoint_auth_methods_supported'].description).toBe('none, client_secret_basic, client_secret_post, private_key_jwt');
    const openId = (schemas['OpenIdProviderMetadata'].allOf?.[1] as { properties: Record<string, { description: string }> }).properties;
    expect(openId['request_uri_parameter_supported'].description).toMatch(/^false/);
    expect(properties('AuthorizationCodeTokenRequest')['client_id'].description).toContain('https URL');
  });
});
