import type { AuthPrincipal } from '@platform/bearer-auth';
import type { Scope } from '@platform/scopes';
import type { z } from 'zod';
import type { SchoolServices } from './school-services';

/** What a tool's handler works with: the caller and the services the REST controllers use. */
export interface ToolContext {
  /** The caller as /mcp authenticated it: anonymous, or a token of one school. */
  readonly principal: AuthPrincipal;
  /**
   * The REST API's own services: every private tool calls them with `principal`, every
   * catalog tool with the anonymous principal.
   */
  readonly services: SchoolServices;
  /** The school a catalog call without `school` looks at (DEFAULT_SCHOOL_ID). */
  readonly defaultSchoolId: string;
}

/** MCP tool annotations (MCP tools specification, ToolAnnotations): hints, all stated. */
export interface ToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  /** Every tool works within the platform's own data. */
  readonly openWorldHint: false;
}

/**
 * One tool, stated once: this object drives `tools/list`, `tools/call` (input validation, the
 * scope check and step-up, the handler) and the documentation's tool table.
 */
export interface McpTool<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /**
   * Every scope a token needs for this tool, from the scope catalogue. Empty: a public tool
   * (anonymous callers too). A caller without them gets the RFC 6750 challenge naming them.
   */
  readonly scopes: readonly Scope[];
  readonly annotations: ToolHints;
  readonly input: Input;
  readonly output: Output;
  readonly handler: (args: z.output<Input>, context: ToolContext) => Promise<z.input<Output>>;
}

/** Keeps each definition's input and output types tied to its handler. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(tool: McpTool<Input, Output>): McpTool {
  return tool as unknown as McpTool;
}

export const READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Adds something new; repeating it adds another. */
export const CREATE: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Changes fields to the given values: repeating it changes nothing more, but it overwrites what was there. */
export const UPDATE: ToolHints = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** A missing item or school, answered to the model as a tool error (not a protocol error). */
export class ToolNotFound extends Error {}
