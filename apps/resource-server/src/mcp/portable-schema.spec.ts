import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { ANONYMOUS } from '@platform/bearer-auth';
import { z } from 'zod';
import { UpdateCourse } from '../courses/courses.dto';
import { createMcpServer } from './mcp-server';
import { portabilityViolations, portableToolSchema, toPortableSchema } from './portable-schema';
import type { SchoolServices } from './school-services';
import { MCP_TOOLS } from './tools';

/** The tools as a client lists them: what a model provider is handed. */
async function listedTools() {
  const server = createMcpServer(MCP_TOOLS, { principal: ANONYMOUS, services: {} as SchoolServices, defaultSchoolId: 'demo-school' }, 'https://learn.example.com');
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'schema-check', version: '1.0.0' });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

describe('every tool schema keeps to the portable subset', () => {
  let tools: Awaited<ReturnType<typeof listedTools>>;

  beforeAll(async () => {
    tools = await listedTools();
  });

  it('lists every tool', () => {
    expect(tools.map((tool) => tool.name)).toEqual(MCP_TOOLS.map((tool) => tool.name));
  });

  it('no input or output schema has a construct outside it (type arrays, null in inputs, $schema, additionalProperties, formats other than date-time…)', () => {
    const problems = tools.flatMap((tool) => [
      ...portabilityViolations(tool.inputSchema, 'input').map((problem) => `${tool.name} ${problem}`),
      ...portabilityViolations(tool.outputSchema, 'output').map((problem) => `${tool.name} ${problem}`),
    ]);
    expect(problems).toEqual([]);
  });

  it('inputs: a nullable REST field is an optional one; the one that was a URL says so in words', () => {
    const createEvent = tools.find((tool) => tool.name === 'create_event')?.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(createEvent.properties['capacity']).toEqual({ type: 'integer', minimum: 1, maximum: 1_000_000 });
    expect(createEvent.properties['online_url']).toEqual({ type: 'string', maxLength: 2000, description: 'Format: uri.' });
    expect(createEvent.properties['starts_at']).toEqual({ type: 'string', format: 'date-time' });
    expect(createEvent.required).not.toContain('capacity');
  });

  it('outputs: null stays apart from absent, as anyOf with a null branch', () => {
    const listCourses = tools.find((tool) => tool.name === 'list_courses')?.outputSchema as { properties: Record<string, unknown> };
    expect(listCourses.properties['next_cursor']).toEqual({
      description: 'Pass as `cursor` for the next page; null on the last page',
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });
});

describe('toPortableSchema', () => {
  const schema = z.object({
    note: z.string().max(10).nullable().optional().describe('A note'),
    count: z.number().int().nullable(),
    when: z.iso.datetime(),
    tags: z.array(z.string().nullable()),
  });

  it('inputs: drops null (type arrays and anyOf alike), $schema, additionalProperties and zod’s date-time pattern', () => {
    expect(toPortableSchema(z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>, 'input')).toEqual({
      type: 'object',
      properties: {
        note: { type: 'string', maxLength: 10, description: 'A note' },
        count: { type: 'integer' },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['count', 'when', 'tags'],
    });
  });

  it('outputs: spells null as anyOf, the description outside', () => {
    expect(toPortableSchema(z.toJSONSchema(schema, { io: 'output' }) as Record<string, unknown>, 'output')).toEqual({
      type: 'object',
      properties: {
        note: { description: 'A note', anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }] },
        count: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      },
      required: ['count', 'when', 'tags'],
    });
  });
});

describe('portabilityViolations', () => {
  it.each([
    [{ type: 'object', properties: { a: { type: ['string', 'null'] } } }, 'output', 'outputSchema.properties.a: type ["string","null"]'],
    [{ type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }, 'input', 'inputSchema.properties.a: anyOf in an input'],
    [{ type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }, 'output', 'outputSchema.properties.a: anyOf without a {type: "null"} branch'],
    [{ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }, 'input', 'inputSchema: keyword $schema'],
    [{ type: 'object', additionalProperties: false }, 'input', 'inputSchema: keyword additionalProperties'],
    [{ type: 'object', properties: { a: { $ref: '#/$defs/a' } } }, 'input', 'inputSchema.properties.a: keyword $ref'],
    [{ type: 'object', properties: { a: { const: 'x' } } }, 'input', 'inputSchema.properties.a: keyword const'],
    [{ type: 'object', properties: { a: {} } }, 'input', 'inputSchema.properties.a: type undefined'],
    [{ type: 'object', properties: { a: true } }, 'input', 'inputSchema.properties.a: not a schema object (true)'],
    [{ type: 'object', properties: { a: { type: 'string', format: 'uri' } } }, 'input', 'inputSchema.properties.a: format "uri"'],
    [{ type: 'object', properties: { a: { type: 'integer', enum: [1, 2] } } }, 'input', 'inputSchema.properties.a: enum of something else than strings'],
    [{ type: 'object', properties: { a: { type: 'array' } } }, 'input', 'inputSchema.properties.a: an array without items'],
  ])('finds %j (%s)', (schema, io, problem) => {
    expect(portabilityViolations(schema, io as 'input' | 'output')).toContainEqual(expect.stringContaining(problem));
  });
});

describe('portableToolSchema', () => {
  it('validates with the zod schema unchanged: null still clears a course’s lecturer, as at the REST API', async () => {
    const result = await portableToolSchema(UpdateCourse)['~standard'].validate({ lecturer_id: null });
    expect(result).toEqual({ value: { lecturer_id: null } });
  });

  it('advertises one frozen schema per zod schema and direction', () => {
    const first = portableToolSchema(UpdateCourse)['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    const again = portableToolSchema(UpdateCourse)['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
