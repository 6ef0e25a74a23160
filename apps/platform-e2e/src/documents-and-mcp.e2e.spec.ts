/** What agents discover the platform by: metadata, OpenAPI, the agent documents and /mcp. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BUSINESS_SCOPES } from '@platform/scopes';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseUrl } from './support/platform';

jest.setTimeout(60_000);

describe('protected resource metadata (RFC 9728)', () => {
  // The document of {base}/mcp is its own (resource {base}/mcp, the scopes of the MCP tools): src/mcp/mcp-clients.e2e.spec.ts.
  it.each(['/.well-known/oauth-protected-resource'])('%s', async (path) => {
    const metadata = (await (await fetch(`${baseUrl()}${path}`)).json()) as { scopes_supported: string[] };
    expect(metadata).toMatchObject({
      resource: baseUrl(),
      authorization_servers: [baseUrl()],
      bearer_methods_supported: ['header'],
      resource_documentation: `${baseUrl()}/auth.md`,
    });
    expect(metadata.scopes_supported).toHaveLength(42);
  });
});

describe('agent documents', () => {
  it.each([
    ['/auth.md', 'text/markdown'],
    ['/llms.txt', 'text/plain'],
    ['/pricing.md', 'text/markdown'],
  ])('%s is served as %s', async (path, type) => {
    const response = await fetch(`${baseUrl()}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain(type);
    expect((await response.text()).length).toBeGreaterThan(200);
  });

  it('auth.md has curl commands for this origin', async () => {
    const text = await (await fetch(`${baseUrl()}/auth.md`)).text();
    expect(text).toContain(`curl`);
    expect(text).toContain(`${baseUrl()}/api/oauth/register`);
  });
});

describe('/openapi.json', () => {
  let document: {
    openapi: string;
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  };

  beforeAll(async () => {
    document = (await (await fetch(`${baseUrl()}/openapi.json`)).json()) as typeof document;
  });

  it('validates as OpenAPI 3.0', () => {
    expect(document.openapi).toMatch(/^3\.0\./);
    // The validator is ESM-only: run it in its own Node process.
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const script = `import { Validator } from '@seriousme/openapi-schema-validator';
      const result = await new Validator().validate(${JSON.stringify(file)});
      if (!result.valid) { console.error(JSON.stringify(result.errors).slice(0, 2000)); process.exit(1); }`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(__dirname, '../../..'), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('guards every business scope behind at least one documented operation', () => {
    const guarded = new Set<string>();
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) {
        for (const requirement of operation.security ?? []) for (const scope of requirement['oauth2'] ?? []) guarded.add(scope);
      }
    }
    expect(BUSINESS_SCOPES.filter((scope) => !guarded.has(scope))).toEqual([]);
  });

  it('documents the OAuth endpoints of the authorization server', () => {
    for (const path of ['/api/oauth/register', '/oauth/authorize', '/api/oauth/token', '/api/oauth/revoke']) {
      expect(Object.keys(document.paths)).toContain(path);
    }
  });
});

describe('/mcp with the MCP SDK client', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'platform-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl()}/mcp`)));
  });

  afterAll(() => client?.close());

  it('lists the catalog tools among all tools, each with an input and an output schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'get_course',
        'get_school_profile',
        'list_courses',
        'list_digital_products',
        'list_events',
        'list_lecturers',
        'list_membership_plans',
        'search_courses',
      ]),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
  });

  it('serves schemas every model provider reads: one type per field, no null among the inputs, no $schema, $ref or additionalProperties', async () => {
    const { tools } = await client.listTools();
    const problems: string[] = [];
    const walk = (node: unknown, path: string, input: boolean): void => {
      if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${path}[${index}]`, input));
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties') {
          for (const [name, child] of Object.entries(value as Record<string, unknown>)) walk(child, `${path}.${name}`, input);
          continue;
        }
        if (key === 'type' && typeof value !== 'string') problems.push(`${path}: type ${JSON.stringify(value)}`);
        if (key === 'type' && value === 'null' && input) problems.push(`${path}: null in an input`);
        if (['$schema', '$ref', '$defs', 'additionalProperties', 'oneOf', 'allOf', 'const'].includes(key)) problems.push(`${path}: ${key}`);
        walk(value, `${path}/${key}`, input);
      }
    };
    for (const tool of tools) {
      walk(tool.inputSchema, `${tool.name} input`, true);
      walk(tool.outputSchema, `${tool.name} output`, false);
    }
    expect(problems).toEqual([]);
  });

  it('calls them anonymously and gets structured content', async () => {
    const courses = await client.callTool({ name: 'list_courses', arguments: {} });
    const list = courses.structuredContent as { data: { id: string }[] };
    expect(list.data.length).toBeGreaterThan(0);
    const course = await client.callTool({ name: 'get_course', arguments: { course_id: list.data[0]?.id } });
    expect(course.isError).toBeFalsy();
    expect(course.structuredContent).toMatchObject({ id: list.data[0]?.id });
    for (const name of ['list_lecturers', 'list_events', 'list_membership_plans', 'list_digital_products', 'get_school_profile']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeDefined();
    }
    const search = await client.callTool({ name: 'search_courses', arguments: { query: 'a' } });
    expect(search.isError).toBeFalsy();
  });
});
