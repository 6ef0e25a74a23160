import type { PipeTransform } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { InvalidRequestError } from '@platform/oauth-errors';
import { z } from 'zod';

/**
 * Request validation with zod. One schema per body or query: it validates at run time, types
 * the handler's argument, and (through zodDto) documents the OpenAPI schema,
 * so the three cannot drift apart.
 *
 * Kept rather than nestjs-zod's createZodDto/ZodValidationPipe (issue 14 asked): a refusal here must be
 * RFC 6749 §5.2 invalid_request with a description naming the field (nestjs-zod throws its own
 * exception that the one error filter would have to re-map), and the OpenAPI 3.0 schema comes from
 * zod's own z.toJSONSchema (openApiSchema below), not from a patch of @nestjs/swagger. The pipe is the
 * ten lines below.
 */

/** `field: problem` for the first few issues; the description names the field. */
export function describeIssues(error: z.ZodError, where: 'body' | 'query'): string {
  const whole = where === 'body' ? 'request body' : 'query';
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : whole}: ${issue.message}`)
    .join('; ');
}

/** Parses a body or query with its schema; anything invalid is 400 `invalid_request`. */
export class ZodPipe<T> implements PipeTransform<unknown, T> {
  constructor(
    private readonly schema: z.ZodType<T>,
    private readonly where: 'body' | 'query' = 'body',
  ) {}

  transform(value: unknown): T {
    const parsed = this.schema.safeParse(value ?? (this.where === 'query' ? {} : undefined));
    if (!parsed.success) throw new InvalidRequestError(describeIssues(parsed.error, this.where));
    return parsed.data;
  }
}

export const body = <T>(schema: z.ZodType<T>) => new ZodPipe(schema, 'body');
export const query = <T>(schema: z.ZodType<T>) => new ZodPipe(schema, 'query');

interface JsonSchema {
  type?: string;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  [keyword: string]: unknown;
}

/**
 * zod's OpenAPI 3.0 rendering, trimmed: the long regexes zod writes for formats it knows
 * (date-time, email, uuid) and the ±2^53 bounds of every integer say nothing a client needs.
 */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;
  return trim(json);
}

function trim(node: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...node };
  delete out['$schema'];
  if (out.format && out.pattern) delete out.pattern;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, value]) => [key, trim(value)]));
  }
  if (out.items) out.items = trim(out.items);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = out[keyword];
    if (Array.isArray(list)) out[keyword] = list.map((item) => trim(item as JsonSchema));
  }
  if (out['additionalProperties'] && typeof out['additionalProperties'] === 'object') {
    out['additionalProperties'] = trim(out['additionalProperties'] as JsonSchema);
  }
  return out;
}

export interface ZodDtoClass<S extends z.ZodObject> {
  new (): z.output<S>;
  readonly schema: S;
}

/**
 * A class for @nestjs/swagger made from a zod object schema: each property gets the
 * @ApiProperty its schema describes. Request DTOs use the input side (defaults, coercions),
 * response DTOs the output side. Name it: the class name is the OpenAPI component's name.
 *
 *   export const CreateCourse = z.object({...});
 *   export class CreateCourseDto extends zodDto(CreateCourse, 'input') {}
 */
export function zodDto<S extends z.ZodObject>(schema: S, io: 'input' | 'output'): ZodDtoClass<S> {
  const json = openApiSchema(schema, io);
  const required = new Set(json.required ?? []);
  class ZodDto {
    static readonly schema = schema;
  }
  for (const [key, property] of Object.entries(json.properties ?? {})) {
    ApiProperty({ ...(property as object), required: required.has(key) })(ZodDto.prototype, key);
  }
  return ZodDto as unknown as ZodDtoClass<S>;
}
