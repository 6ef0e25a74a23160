import { RESOURCE_PATHS } from '../common/resource-paths';

export interface McpOptions {
  /** The public origin (canonical resource URI of the API, no trailing slash). */
  readonly publicBaseUrl: string;
  /** The school a catalog tool call without `school` looks at: DEFAULT_SCHOOL_ID. */
  readonly defaultSchoolId: string;
}

export const MCP_OPTIONS = Symbol('MCP_OPTIONS');

/** `{base}/mcp`: the MCP endpoint's resource identifier (RFC 9728, RFC 8707). */
export const mcpResource = (options: Pick<McpOptions, 'publicBaseUrl'>) => `${options.publicBaseUrl}${RESOURCE_PATHS.mcp}`;

/** RFC 9728 §3.1: the path-suffixed metadata URL of `{base}/mcp`, named in every /mcp challenge. */
export const mcpResourceMetadataUrl = (options: Pick<McpOptions, 'publicBaseUrl'>) =>
  `${options.publicBaseUrl}${RESOURCE_PATHS.protectedResourceMetadataMcp}`;

/**
 * The audiences a token may carry to be used at /mcp (RFC 8707; MCP authorization: "MCP
 * servers MUST validate that access tokens were issued specifically for them as the intended
 * audience"): a token for `{base}/mcp`, and a token for `{base}`, the platform's API, of
 * which /mcp is a part (same origin, same data, same scopes). The API accepts only `{base}`.
 * Today the authorization server binds every resource under the origin, `{base}/mcp`
 * included, to the audience `{base}` (resource-indicator.ts), so every token works at both;
 * accepting `{base}/mcp` here keeps /mcp correct if it ever issues that audience.
 */
export const mcpAudiences = (options: Pick<McpOptions, 'publicBaseUrl'>) => [mcpResource(options), options.publicBaseUrl];
