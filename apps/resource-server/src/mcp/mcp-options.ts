export interface McpOptions {
  /** The public origin (canonical resource URI, no trailing slash). */
  readonly publicBaseUrl: string;
  /** The school a tool call without `school` looks at: DEFAULT_SCHOOL_ID. */
  readonly defaultSchoolId: string;
  /**
   * Browser origins besides the public origin that may call /mcp. Requests without an
   * Origin header (every non-browser client) are not affected.
   */
  readonly allowedOrigins?: readonly string[];
}

export const MCP_OPTIONS = Symbol('MCP_OPTIONS');
