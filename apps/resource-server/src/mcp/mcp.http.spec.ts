import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { ANONYMOUS, type AuthPrincipal, BearerAuthModule } from '@platform/bearer-auth';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { LocalEventBus } from '@platform/event-bus';
import { InvalidRequestError, NotFoundError, OAuthExceptionFilter } from '@platform/oauth-errors';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { registerResourceCors } from '../cors/cors-policy';
import { registerMcpHttpPolicy } from './mcp-http-policy';
import { McpBrowserOrigins } from './mcp-origins';
import { McpModule } from './mcp.module';
import { SCHOOL_SERVICES } from './school-services';
import { MCP_TOOLS } from './tools';

// Each describe builds a Nest application with the MCP module and an introspection stand-in: seconds on a busy CI machine.
jest.setTimeout(60_000);

const BASE = 'http://127.0.0.1:3000';
/** A web-based MCP client's page, allowed as MCP_ALLOWED_ORIGINS would. */
const AGENT_PAGE = 'https://agent.example';
const METADATA = `${BASE}/.well-known/oauth-protected-resource/mcp`;
/** RFC 9449 §7.1: every 401 offers the DPoP scheme beside Bearer, with /mcp's metadata. */
const DPOP = `DPoP resource_metadata="${METADATA}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;
/** A course as the REST service answers it, and as the catalog tools show it (their output schema's fields). */
const COURSE_VIEW = {
  id: 'course-1',
  title: 'Intro to SQL',
  slug: 'intro-to-sql',
  summary: 'Queries from scratch',
  description: 'A **gentle** start.',
  level: 'beginner',
  price_cents: 4900,
  currency: 'USD',
  lecturer_id: 'lecturer-1',
  published: true,
  published_at: '2025-01-02T03:04:05.000Z',
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};
const { description: _description, published: _published, created_at: _created, updated_at: _updated, ...COURSE } = COURSE_VIEW;
const LECTURER = { id: 'lecturer-1', name: 'Ada Lovelace', headline: 'Analyst', bio: '', avatar_url: null, website_url: null };
const STUDENT = { id: 'student-1', name: 'Grace', email: 'grace@academy.test', enrollment_count: 2, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' };

/**
 * The authorization server's RFC 7662 introspection, as the real TokenValidator calls it over
 * HTTP: a token's answer by its value.
 */
const TOKENS: Record<string, { scope: string; aud: string; token_type?: 'DPoP'; cnf?: { jkt: string } } | undefined> = {
  'students-token': { scope: 'students:read', aud: BASE },
  'mcp-token': { scope: 'students:read coupons:write', aud: `${BASE}/mcp` },
  'foreign-token': { scope: 'students:read', aud: 'https://elsewhere.example' },
};

/**
 * The REST services the tools call, recording the principal they were called with. What the
 * catalog tools answer on a real database, next to the REST routes, is
 * test/mcp-catalog.integration.spec.ts.
 */
class RecordingServices {
  readonly calls: { service: string; method: string; principal: AuthPrincipal; args: unknown[] }[] = [];
  failWith?: Error;
  readonly students = this.service('students', { list: { data: [STUDENT], next_cursor: null }, get: STUDENT });
  readonly coupons = this.service('coupons', {});
  readonly courses = this.service('courses', { list: { data: [COURSE_VIEW], next_cursor: 'next-page' }, get: COURSE_VIEW });
  readonly curriculum = this.service('curriculum', {
    outline: {
      course_id: 'course-1',
      section_count: 1,
      lesson_count: 1,
      total_duration_minutes: 7,
      sections: [{ id: 'section-1', title: 'Getting started', position: 0, lessons: [{ id: 'lesson-1', title: 'What is a table?', kind: 'video', duration_minutes: 7, position: 0 }] }],
    },
  });
  readonly lecturers = this.service('lecturers', { list: { data: [LECTURER], next_cursor: null }, get: LECTURER });
  /** Answers every call with the REST 404 of an unknown school. */
  readonly membershipPlans = this.service('membershipPlans', {});
  readonly school = this.service('school', { get: { id: 'demo-school', name: 'Demo Academy', slug: 'demo', description: '', contact_email: null, website_url: null, timezone: 'UTC', currency: 'USD', locale: 'en', created_at: COURSE_VIEW.created_at, updated_at: COURSE_VIEW.updated_at } });

  private service(service: string, answers: Record<string, unknown>) {
    return new Proxy({}, {
      get: (_target, method: string) => async (principal: AuthPrincipal, ...args: unknown[]) => {
        this.calls.push({ service, method, principal, args });
        if (this.failWith) throw this.failWith;
        if (!(method in answers)) throw new NotFoundError('No such school');
        return answers[method];
      },
    });
  }
}

describe('the MCP endpoint (SDK v2 server; 2026-07-28 and the 2025 revisions, stateless)', () => {
  let app: NestFastifyApplication;
  let introspection: Server;
  let services: RecordingServices;
  let url: URL;
  let client: Client;

  beforeAll(async () => {
    introspection = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const token = new URLSearchParams(body).get('token') ?? '';
        const known = TOKENS[token];
        const answer = known
          ? { active: true, token_type: 'Bearer', client_id: 'agent-1', sub: 'user-1', school_id: 'demo-school', iss: BASE, iat: 1, exp: Math.floor(Date.now() / 1000) + 600, ...known }
          : { active: false };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => introspection.listen(0, '127.0.0.1', resolve));
    const port = (introspection.address() as AddressInfo).port;

    services = new RecordingServices();
    const moduleRef = await Test.createTestingModule({
      imports: [
        BearerAuthModule.forRoot({
          introspectionEndpoint: `http://127.0.0.1:${port}/introspect`,
          clientId: 'resource-server',
          clientSecret: 'secret',
          resource: BASE,
          resourceMetadataUrl: `${BASE}/.well-known/oauth-protected-resource`,
          eventBus: new LocalEventBus(),
        }),
        McpModule.register({ publicBaseUrl: BASE, defaultSchoolId: 'demo-school' }),
      ],
    })
      .overrideProvider(SCHOOL_SERVICES)
      .useValue(services)
      .compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    app.useGlobalFilters(new OAuthExceptionFilter());
    // As bootstrap.ts registers them.
    const origins = new McpBrowserOrigins(BASE, [AGENT_PAGE]);
    await registerResourceCors(app, origins);
    registerMcpHttpPolicy(app, origins);
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = new URL(`${await app.getUrl()}/mcp`.replace('[::1]', '127.0.0.1'));
    client = new Client({ name: 'catalog-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
  });

  afterAll(async () => {
    await client.close();
    await app.close();
    await new Promise((resolve) => introspection.close(resolve));
  });

  beforeEach(() => {
    services.calls.length = 0;
    services.failWith = undefined;
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    });
  const callMessage = (name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } });

  describe('protocol versions', () => {
    it('a 2025-11-25 client (the v1 SDK) initializes without a session id', () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'course-platform' });
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      expect(client.getInstructions()).toContain('"demo-school"');
    });

    it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('initialize at %s is answered at that version, as JSON, without a session', async (version) => {
      const response = await post(
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old', version: '1' } } },
        { 'mcp-protocol-version': version },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(await response.json()).toMatchObject({ id: 1, result: { protocolVersion: version, serverInfo: { name: 'course-platform' } } });
    });

    it('2026-07-28: a tools/list without initialize, with the _meta envelope and the Mcp-Method header, carries caching hints', async () => {
      const response = await post(
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/list',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
        },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: { tools: unknown[]; ttlMs: number; cacheScope: string } };
      expect(body.result.tools).toHaveLength(MCP_TOOLS.length);
      expect(body.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    });

    it('2026-07-28 with the v2 SDK client: server/discover, then a catalog tool', async () => {
      const modern = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await modern.connect(new TransportV2(url));
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const result = await modern.callTool({ name: 'list_courses', arguments: {} });
      expect(result.structuredContent).toEqual({ data: [COURSE], next_cursor: 'next-page' });
      await modern.close();
    });

    it('2026-07-28: an Mcp-Name header that does not match the tool called is refused', async () => {
      const response = await post(
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: {
            name: 'list_courses',
            arguments: {},
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
          },
        },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_course' },
      );
      expect(response.status).toBe(400);
      expect(services.calls).toEqual([]);
    });

    it.each(['2024-11-05', '2024-10-07', '2099-01-01'])(
      'initialize asking for %s, a revision it does not serve, is answered with 2025-11-25, the newest initialize-based one it serves',
      async (version) => {
        // Lifecycle: the header comes with the requests after initialization, not with initialize.
        const response = await fetch(url, {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old', version: '1' } } }),
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
      },
    );

    it.each(['2024-11-05', '2024-10-07', '1999-01-01'])(
      'a request whose MCP-Protocol-Version is %s, not served, is 400 naming the revisions it serves',
      async (version) => {
        const response = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-protocol-version': version });
        expect(response.status).toBe(400);
        const body = (await response.json()) as { error: { message: string } };
        expect(body.error.message).toContain('supported versions: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26)');
        expect(services.calls).toEqual([]);
      },
    );

    it('a request without MCP-Protocol-Version is taken as 2025-03-26 (Streamable HTTP, backwards compatibility)', async () => {
      const response = await fetch(url, {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
      expect(response.status).toBe(200);
    });

    it('2026-07-28: server/discover lists the revisions served', async () => {
      const response = await post(
        {
          jsonrpc: '2.0',
          id: 6,
          method: 'server/discover',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
        },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      );
      expect(((await response.json()) as { result: { supportedVersions: string[] } }).result.supportedVersions).toEqual(['2026-07-28']);
    });
  });

  describe('tools/list', () => {
    it('shows every tool to every caller, each with its scopes, annotations, input and output schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(MCP_TOOLS.map((tool) => tool.name));
      for (const tool of tools) {
        const definition = MCP_TOOLS.find((candidate) => candidate.name === tool.name);
        if (!definition) throw new Error(`${tool.name} is not a defined tool`);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.annotations).toMatchObject(definition.annotations);
        expect(tool.description).toContain(definition.scopes.length ? `needs scope ${definition.scopes.join(' ')}` : 'no token needed');
      }
      expect(tools.find((tool) => tool.name === 'search_courses')?.inputSchema.required).toEqual(['query']);
      expect(tools.find((tool) => tool.name === 'create_coupon')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    });

    it('is the same list with a token', async () => {
      const response = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: 'Bearer students-token' });
      expect(((await response.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(MCP_TOOLS.length);
    });
  });

  describe('tokens at /mcp', () => {
    it.each([
      ['an unknown, expired or revoked token', 'Bearer nope', 'The access token is invalid, expired or revoked'],
      ['a token for another resource', 'Bearer foreign-token', 'The access token was not issued for this resource'],
    ])('%s: 401 invalid_token with the /mcp resource metadata', async (_case, authorization, description) => {
      const response = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", error_description="${description}", resource_metadata="${METADATA}", ${DPOP}`,
      );
      expect(await response.json()).toEqual({ error: 'invalid_token', error_description: description });
    });

    it('another scheme is answered like no credentials: no error code, a JSON-RPC error body (RFC 6750 §3.1)', async () => {
      const response = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: 'Basic YTpi' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${METADATA}", ${DPOP}`);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Only Bearer and DPoP access tokens are accepted' }, id: 1 });
    });

    it('a private tool without a token: 401 naming its scopes, so the client signs in; the body has no OAuth error code (RFC 6750 §3.1)', async () => {
      const response = await post(callMessage('list_students'));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer scope="students:read", resource_metadata="${METADATA}", DPoP scope="students:read", resource_metadata="${METADATA}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`,
      );
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'The tool list_students needs an access token with scope students:read' },
        id: 7,
      });
      expect(services.calls).toEqual([]);
    });

    it('the v2 SDK client without an auth provider shows what the body says', async () => {
      const modern = new ClientV2({ name: 'anonymous', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await modern.connect(new TransportV2(url));
      await expect(modern.callTool({ name: 'list_students', arguments: {} })).rejects.toThrow('The tool list_students needs an access token with scope students:read');
      await modern.close();
    });

    describe('DPoP (RFC 9449 §7)', () => {
      let signProof: (claims: { htm?: string; htu?: string; token: string }) => Promise<string>;

      beforeAll(async () => {
        const { privateKey, publicKey } = await generateKeyPair('ES256');
        const jwk = await exportJWK(publicKey);
        TOKENS['dpop-token'] = { scope: 'students:read', aud: BASE, token_type: 'DPoP', cnf: { jkt: await calculateJwkThumbprint(jwk) } };
        signProof = ({ htm = 'POST', htu = `${BASE}/mcp`, token }) =>
          new SignJWT({ htm, htu, jti: randomUUID(), ath: createHash('sha256').update(token).digest('base64url') })
            .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
            .setIssuedAt()
            .sign(privateKey);
      });

      it('a DPoP-bound token with its proof calls a tool', async () => {
        const response = await post(callMessage('list_students'), { authorization: 'DPoP dpop-token', dpop: await signProof({ token: 'dpop-token' }) });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { result: CallToolResult }).result.structuredContent).toEqual({ data: [STUDENT], next_cursor: null });
      });

      it('a DPoP-bound token sent as Bearer: 401 invalid_token', async () => {
        const response = await post(callMessage('list_students'), { authorization: 'Bearer dpop-token' });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="This access token is bound to a DPoP key/);
      });

      it('a proof for another URL: 401 with DPoP error="invalid_dpop_proof"', async () => {
        const response = await post(callMessage('list_students'), { authorization: 'DPoP dpop-token', dpop: await signProof({ htu: `${BASE}/api/v1/students`, token: 'dpop-token' }) });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe(
          `Bearer resource_metadata="${METADATA}", DPoP error="invalid_dpop_proof", error_description="The DPoP proof is for another URL", resource_metadata="${METADATA}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`,
        );
        expect(await response.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof is for another URL' });
      });

      it('a DPoP token without the tool’s scope: 403 insufficient_scope in the DPoP scheme (step-up)', async () => {
        const response = await post(callMessage('create_coupon', { code: 'X' }), { authorization: 'DPoP dpop-token', dpop: await signProof({ token: 'dpop-token' }) });
        expect(response.status).toBe(403);
        expect(response.headers.get('www-authenticate')).toBe(
          `DPoP error="insufficient_scope", error_description="The access token lacks a required scope: coupons:write", scope="coupons:write", resource_metadata="${METADATA}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`,
        );
      });
    });

    it('a token for {base} works at /mcp; the service gets the token’s principal', async () => {
      const response = await post(callMessage('list_students', { limit: 5 }), { authorization: 'Bearer students-token' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: CallToolResult };
      expect(body.result.structuredContent).toEqual({ data: [STUDENT], next_cursor: null });
      expect(services.calls).toEqual([
        {
          service: 'students',
          method: 'list',
          principal: expect.objectContaining({ kind: 'token', schoolId: 'demo-school', userId: 'user-1', scopes: ['students:read'] }),
          args: [{ limit: 5 }],
        },
      ]);
    });

    it('a token for {base}/mcp works at /mcp', async () => {
      const response = await post(callMessage('get_student', { student_id: 'student-1' }), { authorization: 'Bearer mcp-token' });
      expect(((await response.json()) as { result: CallToolResult }).result.structuredContent).toEqual(STUDENT);
      expect(services.calls[0]).toMatchObject({ service: 'students', method: 'get', args: ['student-1'] });
    });

    it('step-up: a tool whose scope the token lacks is 403 insufficient_scope naming every scope the call needs', async () => {
      const response = await post(callMessage('create_coupon', { code: 'SPRING', percent_off: 10 }), { authorization: 'Bearer students-token' });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", error_description="The access token lacks a required scope: coupons:write", scope="coupons:write", resource_metadata="${METADATA}"`,
      );
      expect(await response.json()).toEqual({ error: 'insufficient_scope', error_description: 'The access token lacks a required scope: coupons:write' });
      expect(services.calls).toEqual([]);
    });

    it('step-up for a batch (2025-03-26): the union of what its calls need', async () => {
      const response = await post([callMessage('list_orders'), { ...callMessage('top_courses'), id: 8 }, { ...callMessage('list_students'), id: 9 }], {
        authorization: 'Bearer students-token',
        'mcp-protocol-version': '2025-03-26',
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toContain('scope="orders:read analytics:read"');
    });

    it('the v1 SDK client steps up by itself only with an auth provider; without one it surfaces the 403', async () => {
      const withToken = new Client({ name: 'token', version: '1.0.0' });
      await withToken.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: 'Bearer students-token' } } }));
      await expect(withToken.callTool({ name: 'create_coupon', arguments: { code: 'SPRING', percent_off: 10 } })).rejects.toThrow(/insufficient_scope/);
      await withToken.close();
    });
  });

  describe('the catalog tools (public)', () => {
    it('list_courses: the REST list as the anonymous caller, in the default school; the output schema’s fields, as structured content and JSON text', async () => {
      const result = await call('list_courses');
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ data: [COURSE], next_cursor: 'next-page' });
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
      expect(services.calls).toEqual([
        { service: 'courses', method: 'list', principal: ANONYMOUS, args: [{ school: 'demo-school', limit: 20, cursor: undefined }] },
      ]);
    });

    it('a token does not change what a catalog tool reads: still the anonymous view', async () => {
      const response = await post(callMessage('list_courses', { school: 'demo-school', limit: 5, cursor: 'next-page' }), { authorization: 'Bearer students-token' });
      expect(response.status).toBe(200);
      expect(services.calls).toEqual([
        { service: 'courses', method: 'list', principal: ANONYMOUS, args: [{ school: 'demo-school', limit: 5, cursor: 'next-page' }] },
      ]);
    });

    it('get_course: the course, its lecturer and its outline, from the REST services', async () => {
      expect((await call('get_course', { course_id: 'course-1' })).structuredContent).toEqual({
        ...COURSE,
        description: 'A **gentle** start.',
        lecturer: { id: 'lecturer-1', name: 'Ada Lovelace', headline: 'Analyst' },
        outline: [{ id: 'section-1', title: 'Getting started', lessons: [{ id: 'lesson-1', title: 'What is a table?', kind: 'video', duration_minutes: 7 }] }],
      });
      expect(services.calls.map(({ service, method, principal }) => [service, method, principal])).toEqual([
        ['courses', 'get', ANONYMOUS],
        ['curriculum', 'outline', ANONYMOUS],
        ['lecturers', 'get', ANONYMOUS],
      ]);
    });

    it('get_school_profile: the public profile', async () => {
      expect((await call('get_school_profile')).structuredContent).toMatchObject({ id: 'demo-school', name: 'Demo Academy' });
    });

    it('a REST 404 is a tool error naming the school', async () => {
      const result = await call('list_membership_plans', { school: 'nowhere' });
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'No school with the id "nowhere"' }] });
    });

    it('invalid arguments are refused by the input schema', async () => {
      const result = await call('list_courses', { limit: 1000 });
      expect(result.isError).toBe(true);
      expect(services.calls).toEqual([]);
    });

    it('a bad cursor is a tool error with the service’s explanation', async () => {
      services.failWith = new InvalidRequestError('cursor: not a cursor this list issued');
      expect((await call('list_courses', { cursor: 'forged' })).content).toEqual([{ type: 'text', text: 'cursor: not a cursor this list issued' }]);
    });

    it('an unexpected failure is answered without its details', async () => {
      services.failWith = new Error('connect ECONNREFUSED 10.0.0.5:5432 SELECT * FROM courses');
      const result = await call('list_courses');
      expect(result).toMatchObject({ isError: true });
      expect(JSON.stringify(result)).not.toContain('ECONNREFUSED');
    });
  });

  describe('HTTP', () => {
    it.each(['GET', 'DELETE'] as const)('%s answers 405 in stateless mode', async (method) => {
      const response = await fetch(url, { method, headers: { accept: 'application/json, text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Method not allowed') }, id: null });
    });

    it.each([
      ['not JSON', '{"jsonrpc":', 'Parse error: the body is not valid JSON'],
      ['empty', '', 'Parse error: the body is empty'],
    ])('a body that is %s: 400 with a JSON-RPC parse error, id null', async (_case, body, message) => {
      const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message }, id: null });
    });

    it('another media type: 415 with a JSON-RPC error', async () => {
      const response = await fetch(url, { method: 'POST', body: 'tools/list', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' } });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' }, id: null });
    });

    it('a body over the limit: 413 with a JSON-RPC error', async () => {
      const response = await fetch(url, { method: 'POST', body: `"${'x'.repeat(1_100_000)}"`, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Payload too large') }, id: null });
    });

    it('refuses a browser Origin other than the public origin (DNS rebinding), before looking at the token', async () => {
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      const foreign = await post(message, { origin: 'https://evil.example', authorization: 'Bearer nope' });
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: this Origin may not call the MCP endpoint' }, id: null });
      const own = await post(message, { origin: BASE });
      expect(own.status).toBe(200);
      expect(((await own.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(MCP_TOOLS.length);
    });
  });

  describe('browser clients (CORS)', () => {
    const preflight = (origin: string, path = '/mcp') =>
      fetch(new URL(path, url), {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,mcp-protocol-version,mcp-method,mcp-name' },
      });

    it.each([BASE, AGENT_PAGE])('the preflight from %s, an allowed origin, grants that origin and the headers MCP clients send', async (origin) => {
      const response = await preflight(origin);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('vary')).toContain('Origin');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('access-control-allow-methods')?.split(', ')).toEqual(expect.arrayContaining(['POST', 'GET', 'DELETE']));
      expect(response.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name']),
      );
    });

    it('the preflight from any other origin: 403, and no CORS grant at all', async () => {
      const response = await preflight('https://evil.example');
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-headers')).toBeNull();
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: this Origin may not call the MCP endpoint' }, id: null });
    });

    it('a request from an allowed page is served, with the challenge headers readable', async () => {
      const response = await post(callMessage('list_students'), { origin: AGENT_PAGE });
      expect(response.status).toBe(401);
      expect(response.headers.get('access-control-allow-origin')).toBe(AGENT_PAGE);
      expect(response.headers.get('access-control-expose-headers')?.split(', ')).toEqual(['WWW-Authenticate', 'Retry-After', 'DPoP-Nonce']);
      const tools = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: AGENT_PAGE });
      expect(tools.status).toBe(200);
      expect(tools.headers.get('access-control-allow-origin')).toBe(AGENT_PAGE);
    });

    it('the rest of the service keeps any origin without credentials', async () => {
      const response = await preflight('https://evil.example', '/api/v1/courses');
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, DPoP');
    });
  });
});
