import { isTokenPrincipal, type AuthPrincipal } from '@platform/bearer-auth';
import { ALL_SCOPES, type Scope, scopesOutside } from '@platform/scopes';
import { CATALOG_TOOLS } from './catalog-tools';
import { SCHOOL_TOOLS } from './school-tools';
import type { McpTool } from './tool-definition';

/** Every tool /mcp serves, in the order `tools/list` and the documentation show them. */
export const MCP_TOOLS: readonly McpTool[] = [...CATALOG_TOOLS, ...SCHOOL_TOOLS];

const BY_NAME = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));

export function toolNamed(name: unknown): McpTool | undefined {
  return typeof name === 'string' ? BY_NAME.get(name) : undefined;
}

/** The scopes of `tool` the caller lacks (all of them for an anonymous caller). */
export function missingScopes(tool: McpTool, principal: AuthPrincipal): readonly Scope[] {
  const granted: readonly string[] = isTokenPrincipal(principal) ? principal.scopes : [];
  return scopesOutside(tool.scopes, granted);
}

/**
 * RFC 9728 `scopes_supported` of /mcp: the scopes its tools use, in catalogue order. The
 * minimal baseline an MCP client needs to know about; never OIDC or `offline_access`.
 */
export function mcpScopes(tools: readonly McpTool[] = MCP_TOOLS): Scope[] {
  const used = new Set(tools.flatMap((tool) => tool.scopes));
  return ALL_SCOPES.filter((scope) => used.has(scope));
}

/** The Markdown tool table (tool | scopes | what it does), generated from the definitions. */
export function renderMcpToolTable(tools: readonly McpTool[] = MCP_TOOLS): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = tools.map(
    (tool) =>
      `| \`${tool.name}\` | ${tool.scopes.length ? tool.scopes.map((scope) => `\`${scope}\``).join(' ') : 'none (public)'} | ${cell(tool.description)} |`,
  );
  return ['| Tool | Scopes | What it does |', '| --- | --- | --- |', ...rows].join('\n') + '\n';
}
