import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

/**
 * The JSON Schema subset every tool's `inputSchema` and `outputSchema` keeps to: what the major
 * model providers' function-calling dialects and the MCP clients that translate into them all
 * accept. The narrowest is Gemini's `FunctionDeclaration.parameters`, "a select subset of an
 * OpenAPI 3.0 schema object": one `type` per node (no `["string","null"]`: gemini-cli answered
 * such tools with 400 until it learnt to rewrite them), no `$ref`/`$defs`, `const`, `oneOf`,
 * `allOf`, `not`, `additionalProperties` or `$schema` (unknown fields are refused), `format`
 * only `date-time` on strings, `enum` only on strings. OpenAI's function calling takes all of it
 * (its strict mode asks for more than any schema with optional fields can give: the clients that
 * use it rewrite the schema themselves), Anthropic's takes any JSON Schema. The MCP Inspector
 * warns on type arrays, untyped nodes, boolean schemas and remote references; none are left.
 *
 * - Inputs never mention `null`: a nullable input is an optional one (the REST schemas behind
 *   the tools make every nullable input optional too, and for a new item null and absent mean
 *   the same). The tool still accepts null where the REST API does: validation is the REST zod
 *   schema's, unchanged; only what is advertised is narrower.
 * - Outputs say `null` as `anyOf: [{type: X, …}, {type: "null"}]`, the spelling the Inspector
 *   suggests and OpenAI and Gemini both read: every field of an answer is present, so null and
 *   absent must stay apart there.
 */
export const PORTABLE_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'default',
  'anyOf',
]);
const PORTABLE_TYPES: ReadonlySet<string> = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean']);
const PORTABLE_FORMATS: ReadonlySet<string> = new Set(['date-time']);
/** What zod writes for `.int()` without bounds: true of every JavaScript integer, so it says nothing. */
const SAFE_INTEGER_BOUNDS = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

type Io = 'input' | 'output';
type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as the SDK's registerTool takes it (Standard Schema with JSON Schema): validation
 * is the zod schema's own; the JSON Schema `tools/list` advertises is zod's, rewritten into the
 * portable subset. Computed once per schema and direction, frozen (every request's server lists
 * the same tools).
 */
export function portableToolSchema<S extends z.ZodObject>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const standard = schema['~standard'];
  return {
    '~standard': {
      version: standard.version,
      vendor: standard.vendor,
      validate: standard.validate,
      jsonSchema: {
        input: (options) => advertised(schema, 'input', () => standard.jsonSchema.input(options)),
        output: (options) => advertised(schema, 'output', () => standard.jsonSchema.output(options)),
      },
    },
  };
}

const ADVERTISED = new WeakMap<z.ZodObject, Partial<Record<Io, JsonSchema>>>();

function advertised(schema: z.ZodObject, io: Io, generate: () => JsonSchema): JsonSchema {
  const cached = ADVERTISED.get(schema) ?? {};
  ADVERTISED.set(schema, cached);
  return (cached[io] ??= deepFreeze(toPortableSchema(generate(), io)));
}

/** zod's JSON Schema (draft 2020-12) rewritten into the portable subset (see PORTABLE_KEYWORDS). */
export function toPortableSchema(schema: JsonSchema, io: Io): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rewrite(rest, io);
}

function rewrite(node: JsonSchema, io: Io): JsonSchema {
  const nullable = splitNull(node);
  if (nullable) {
    const value = rewrite(nullable.value, io);
    const { description, default: fallback, ...valueOnly } = value;
    if (io === 'input') return value;
    return { ...(description === undefined ? {} : { description }), ...(fallback === undefined || fallback === null ? {} : { default: fallback }), anyOf: [valueOnly, { type: 'null' }] };
  }
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === 'additionalProperties') continue;
    if (keyword === 'properties') out[keyword] = mapValues(value as Record<string, JsonSchema>, (child) => rewrite(child, io));
    else if (keyword === 'items') out[keyword] = rewrite(value as JsonSchema, io);
    else if (keyword === 'anyOf') out[keyword] = (value as JsonSchema[]).map((branch) => rewrite(branch, io));
    else out[keyword] = value;
  }
  if (out['format'] !== undefined && !PORTABLE_FORMATS.has(out['format'] as string)) {
    // Not expressible for Gemini: said in words, still checked by the server.
    out['description'] = [out['description'], `Format: ${String(out['format'])}.`].filter(Boolean).join(' ');
    delete out['format'];
  }
  // zod writes its own regular expression beside `format: date-time`: the format says it, and
  // the pattern is some 400 characters of every tool list, with constructs not every dialect reads.
  if (out['format'] === 'date-time') delete out['pattern'];
  if (out['type'] === 'integer' && out['minimum'] === SAFE_INTEGER_BOUNDS.minimum) delete out['minimum'];
  if (out['type'] === 'integer' && out['maximum'] === SAFE_INTEGER_BOUNDS.maximum) delete out['maximum'];
  return out;
}

/**
 * The non-null part of a node that also allows null: `type: [X, "null"]`, or `anyOf` of one
 * schema and `{type: "null"}` (zod writes the second when X has constraints), with the node's
 * own description and default carried over.
 */
function splitNull(node: JsonSchema): { value: JsonSchema } | undefined {
  const { type, anyOf, ...rest } = node;
  if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
    return { value: { ...rest, type: type.find((item) => item !== 'null') } };
  }
  if (Array.isArray(anyOf) && anyOf.length === 2 && type === undefined) {
    const nonNull = (anyOf as JsonSchema[]).filter((branch) => !(branch['type'] === 'null' && Object.keys(branch).length === 1));
    if (nonNull.length === 1) return { value: { ...nonNull[0], ...withoutNullDefault(rest) } };
  }
  return undefined;
}

function withoutNullDefault(node: JsonSchema): JsonSchema {
  const { default: fallback, ...rest } = node;
  return fallback === null || fallback === undefined ? rest : { ...rest, default: fallback };
}

function mapValues<T, U>(record: Record<string, T>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Every construct of `schema` outside the portable subset, as `path: what` lines (empty: none).
 * The tools' spec walks every advertised schema with it.
 */
export function portabilityViolations(schema: unknown, io: Io, path = io === 'input' ? 'inputSchema' : 'outputSchema'): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${path}: not a schema object (${JSON.stringify(schema)})`];
  const node = schema as JsonSchema;
  const problems: string[] = [];
  for (const keyword of Object.keys(node)) if (!PORTABLE_KEYWORDS.has(keyword)) problems.push(`${path}: keyword ${keyword}`);
  if ('anyOf' in node) {
    problems.push(...nullableViolations(node, io, path));
    return problems;
  }
  const type = node['type'];
  if (typeof type !== 'string' || !PORTABLE_TYPES.has(type)) problems.push(`${path}: type ${JSON.stringify(type)} (one of ${[...PORTABLE_TYPES].join(', ')})`);
  if (node['format'] !== undefined && (type !== 'string' || !PORTABLE_FORMATS.has(node['format'] as string))) problems.push(`${path}: format ${JSON.stringify(node['format'])}`);
  if (node['enum'] !== undefined && (type !== 'string' || !Array.isArray(node['enum']) || !node['enum'].every((item) => typeof item === 'string'))) {
    problems.push(`${path}: enum of something else than strings`);
  }
  if (type === 'object') {
    for (const [name, child] of Object.entries((node['properties'] ?? {}) as Record<string, unknown>)) {
      problems.push(...portabilityViolations(child, io, `${path}.properties.${name}`));
    }
  }
  if (type === 'array') {
    if (node['items'] === undefined) problems.push(`${path}: an array without items`);
    else problems.push(...portabilityViolations(node['items'], io, `${path}.items`));
  }
  return problems;
}

/** `anyOf` is the nullable spelling of outputs only: one typed schema and `{type: "null"}`. */
function nullableViolations(node: JsonSchema, io: Io, path: string): string[] {
  const anyOf = node['anyOf'];
  if (io === 'input') return [`${path}: anyOf in an input (a nullable input is an optional one)`];
  const others = Object.keys(node).filter((keyword) => !['anyOf', 'description', 'default'].includes(keyword));
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || others.length > 0) return [`${path}: anyOf other than [schema, {type: "null"}]`];
  const nullBranch = anyOf.findIndex((branch) => JSON.stringify(branch) === '{"type":"null"}');
  if (nullBranch === -1) return [`${path}: anyOf without a {type: "null"} branch`];
  return portabilityViolations(anyOf[1 - nullBranch], io, `${path}.anyOf[${1 - nullBranch}]`);
}
