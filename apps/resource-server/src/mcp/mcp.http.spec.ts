import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { InvalidRequestError, OAuthExceptionFilter } from '@platform/oauth-errors';
import { CATALOG_READER } from './catalog-reader';
import { COURSE, COURSE_DETAIL, FakeCatalogReader } from './fake-catalog-reader';
import { McpModule } from './mcp.module';

describe('the MCP endpoint (Streamable HTTP, stateless)', () => {
  let app: NestFastifyApplication;
  let reader: FakeCatalogReader;
  let url: URL;
  let client: Client;

  beforeAll(async () => {
    reader = new FakeCatalogReader();
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.register({ publicBaseUrl: 'http://127.0.0.1:3000', defaultSchoolId: 'demo-school' })],
    })
      .overrideProvider(CATALOG_READER)
      .useValue(reader)
      .compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    app.useGlobalFilters(new OAuthExceptionFilter());
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = new URL(`${await app.getUrl()}/mcp`.replace('[::1]', '127.0.0.1'));
    client = new Client({ name: 'catalog-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  beforeEach(() => {
    reader.calls.length = 0;
    reader.failWith = undefined;
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('initializes without a session id (stateless)', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'course-platform-catalog' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('"demo-school"');
  });

  it('lists the eight catalog tools, read-only, with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_course',
      'get_school_profile',
      'list_courses',
      'list_digital_products',
      'list_events',
      'list_lecturers',
      'list_membership_plans',
      'search_courses',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const search = tools.find((tool) => tool.name === 'search_courses');
    expect(search?.inputSchema.required).toEqual(['query']);
  });

  it('list_courses: a page of the default school, as structured content and JSON text', async () => {
    const result = await call('list_courses');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ data: [COURSE], next_cursor: 'next-page' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect(reader.calls).toEqual([{ method: 'listCourses', schoolId: 'demo-school', args: [{ limit: 20, cursor: undefined }] }]);
  });

  it('list_courses: passes the school, the page size and the cursor on', async () => {
    await call('list_courses', { school: 'demo-school', limit: 5, cursor: 'next-page' });
    expect(reader.calls[0].args).toEqual([{ limit: 5, cursor: 'next-page' }]);
  });

  it('search_courses: finds by text', async () => {
    expect((await call('search_courses', { query: 'sql' })).structuredContent).toEqual({ data: [COURSE], next_cursor: null });
    expect((await call('search_courses', { query: 'pottery' })).structuredContent).toEqual({ data: [], next_cursor: null });
  });

  it('get_course: the course with its curriculum outline', async () => {
    expect((await call('get_course', { course_id: 'course-1' })).structuredContent).toEqual(COURSE_DETAIL);
  });

  it('get_course: a course that is not in the public catalog is a tool error', async () => {
    const result = await call('get_course', { course_id: 'draft-course' });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'No published course with the id "draft-course" in the school "demo-school"' }]);
  });

  it.each([
    ['list_lecturers', 'listLecturers'],
    ['list_events', 'listEvents'],
    ['list_membership_plans', 'listMembershipPlans'],
    ['list_digital_products', 'listDigitalProducts'],
  ])('%s: one page of the school', async (tool, method) => {
    const result = await call(tool);
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: unknown[] }).data).toHaveLength(1);
    expect(reader.calls[0]).toMatchObject({ method, schoolId: 'demo-school' });
  });

  it('list_events: asks for events that start after the time of the call', async () => {
    const before = Date.now();
    await call('list_events');
    const now = reader.calls[0].args[1] as Date;
    expect(now.getTime()).toBeGreaterThanOrEqual(before);
    expect(now.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('get_school_profile: the public profile', async () => {
    expect((await call('get_school_profile')).structuredContent).toMatchObject({ id: 'demo-school', name: 'Demo Academy' });
  });

  it('an unknown school is a tool error naming it', async () => {
    for (const tool of ['list_courses', 'list_lecturers', 'get_school_profile']) {
      const result = await call(tool, { school: 'nowhere' });
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'No school with the id "nowhere"' }] });
    }
  });

  it('invalid arguments are refused by the input schema', async () => {
    const result = await call('list_courses', { limit: 1000 });
    expect(result.isError).toBe(true);
    expect(reader.calls).toEqual([]);
  });

  it('a bad cursor is a tool error with the reader’s explanation', async () => {
    reader.failWith = new InvalidRequestError('cursor: not a cursor this list issued');
    expect((await call('list_courses', { cursor: 'forged' })).content).toEqual([
      { type: 'text', text: 'cursor: not a cursor this list issued' },
    ]);
  });

  it('an unexpected failure is answered without its details', async () => {
    reader.failWith = new Error('connect ECONNREFUSED 10.0.0.5:5432 SELECT * FROM courses');
    const result = await call('list_courses');
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result)).not.toContain('ECONNREFUSED');
  });

  it.each(['GET', 'DELETE'] as const)('%s answers 405 in stateless mode', async (method) => {
    const response = await fetch(url, { method, headers: { accept: 'application/json, text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Method not allowed') }, id: null });
  });

  it('refuses a browser Origin other than the public origin (DNS rebinding)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const foreign = await fetch(url, { method: 'POST', body, headers: { ...headers, origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const own = await fetch(url, { method: 'POST', body, headers: { ...headers, origin: 'http://127.0.0.1:3000' } });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(8);
  });
});
