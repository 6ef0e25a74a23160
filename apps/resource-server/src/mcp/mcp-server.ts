import { Logger } from '@nestjs/common';
import { type CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { OAuthError } from '@platform/oauth-errors';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { portableToolSchema } from './portable-schema';
import { type McpTool, type ToolContext, ToolNotFound } from './tool-definition';
import { missingScopes } from './tools';

export const SERVER_INFO = { name: 'course-platform', title: 'Course platform', version: '2.0.0' } as const;

/**
 * The MCP revisions /mcp serves, the newest first. Not the SDK's default list, which goes back
 * to 2024-11-05 and 2024-10-07: those revisions have no Streamable HTTP transport and no
 * authorization, so a client of theirs cannot use this endpoint. Lifecycle, version negotiation:
 * "If the server supports the requested protocol version, it MUST respond with the same version.
 * Otherwise, the server MUST respond with another protocol version it supports. This SHOULD be
 * the latest version supported by the server": an `initialize` asking for anything else is
 * answered with 2025-11-25, the newest initialize-based revision here (the SDK picks the first
 * of this list's initialize-based ones). Streamable HTTP: "If the server receives a request with
 * an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request": the
 * SDK's transports check the header against this list. 2026-07-28 requests name their revision
 * in `_meta`; an unknown one is an UnsupportedProtocolVersionError listing what is served.
 */
export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];

/**
 * 2026-07-28 caching hints (`ttlMs`/`cacheScope`). The tool list and the discovery answer are
 * the same for every caller (see `describe` below), so any cache may keep them a while.
 */
const FIVE_MINUTES = { ttlMs: 300_000, cacheScope: 'public' } as const;

const logger = new Logger('Mcp');

/**
 * A fresh MCP server over the tool definitions for one request (stateless: nothing is kept
 * between requests, so any instance answers any request).
 *
 * What `tools/list` shows: every tool, to every caller, anonymous or not, whatever its token's
 * scopes. The list is what the server can do; each private tool says which scopes it needs,
 * and calling it without them is answered with the challenge that starts the MCP step-up
 * (401 without a token, 403 insufficient_scope with one). Listing only what the caller can
 * call would hide that step-up exists, make an agent's tool list change under it with every
 * token, and make the list uncacheable; it would protect nothing, since the list is documented.
 */
export function createMcpServer(tools: readonly McpTool[], context: ToolContext, publicBaseUrl: string): McpServer {
  const server = new McpServer(SERVER_INFO, {
    supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
    capabilities: { tools: { listChanged: false } },
    cacheHints: { 'tools/list': FIVE_MINUTES, 'server/discover': FIVE_MINUTES },
    instructions:
      `Tools over the course platform's schools. The catalog tools (courses, lecturers, upcoming public events, membership ` +
      `plans, digital products, school profiles) are public: no token needed; without \`school\` they look at the school ` +
      `"${context.defaultSchoolId}". The other tools work on the school of your access token (students, team, orders, ` +
      `analytics, coupons, courses and curriculum, events, posts); each names the scopes it needs, and a call without them ` +
      `is answered with an OAuth challenge naming them. Lists are paginated: pass \`next_cursor\` back as \`cursor\`. ` +
      `How to get a token: ${publicBaseUrl}${RESOURCE_PATHS.authGuide}.`,
  });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: describe(tool),
        // Validated by the zod schemas; advertised in the subset every provider accepts.
        inputSchema: portableToolSchema(tool.input),
        outputSchema: portableToolSchema(tool.output),
        annotations: { title: tool.title, ...tool.annotations },
      },
      (args: unknown) => call(tool, args, context),
    );
  }
  return server;
}

function describe(tool: McpTool): string {
  if (tool.scopes.length === 0) return `${tool.description} Public: no token needed.`;
  return `${tool.description} Works on your token's school; needs scope ${tool.scopes.join(' ')}.`;
}

/**
 * A tool's answer: the value as structured content and, since "a tool that returns structured
 * content SHOULD also return the serialized JSON in a TextContent block" (MCP tools
 * specification), as text. A missing item, a refused input or a conflict is a tool error the
 * model can read (the service's own description); anything unexpected is logged and answered
 * with a generic message (no SQL or stack in the answer).
 */
async function call(tool: McpTool, args: unknown, context: ToolContext): Promise<CallToolResult> {
  // The HTTP layer answered a caller without the scopes with a challenge before this point;
  // checked again here so that no path reaches a handler without them.
  if (missingScopes(tool, context.principal).length > 0) return toolError(`This tool needs scope ${tool.scopes.join(' ')}`);
  try {
    const value = (await tool.handler(args as never, context)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    if (error instanceof ToolNotFound) return toolError(error.message);
    if (error instanceof OAuthError && error.status < 500) return toolError(error.description);
    logger.error(`${tool.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return toolError('The server encountered an unexpected condition; try again later');
  }
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
